/** The document resource kind (filled in by the documents area). */
import type { ResourceKind } from '../core/resources';

export const docKind: ResourceKind = {
  kind: 'doc',
  collection: 'vis/docs',
  param: 'doc',
  noun: 'document',
  entries: [],
  log: true,
  url: (env, owner, name) => `${env.PUBLIC_ORIGIN}/u/${owner}/d/${name}`,
};
