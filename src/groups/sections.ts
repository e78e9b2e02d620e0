/**
 * The sections of /v1/o/<org or group reference>/<section>: the letter names a resource
 * kind, listed from its owner's collection.
 */
import type { ResourceKindName } from '../db/schema';

export const SECTIONS: Record<string, { kind: ResourceKindName; collection: string }> = {
  d: { kind: 'doc', collection: 'vis/docs' },
  g: { kind: 'grid', collection: 'vis/grids' },
  m: { kind: 'mail', collection: 'vis/mails' },
  j: { kind: 'job', collection: 'code/jobs' },
  p: { kind: 'plot', collection: 'vis/plots' },
};

/** The collection of each of those kinds (`doc` → `vis/docs`). */
export const COLLECTION_OF: Record<string, string> = Object.fromEntries(
  Object.values(SECTIONS).map((s) => [s.kind, s.collection]),
);
