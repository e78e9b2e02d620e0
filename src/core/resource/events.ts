/**
 * The events of the shared resource code (core/events.ts): `<kind>.created`, `.updated`
 * (an entry written or cleared) and `.deleted` for documents, grids and mails. Thin: the
 * owner, the kind, the name and the resource's url; never its content.
 */
import type { Resource, User } from '../../db/schema';
import { emit, type Background, type EventType } from '../events';
import type { ResourceKind } from './kind';

const PREFIX: Partial<Record<ResourceKind['kind'], string>> = { doc: 'document', grid: 'grid', mail: 'mail' };

export function resourceEvent(
  env: Env,
  bg: Background,
  kind: ResourceKind,
  owner: User,
  resource: Resource,
  action: 'created' | 'updated' | 'deleted',
  extra: Record<string, unknown> = {},
): Promise<void> {
  const prefix = PREFIX[kind.kind];
  if (!prefix) return Promise.resolve();
  return emit(env, bg, {
    type: `${prefix}.${action}` as EventType,
    ownerId: resource.owner_id,
    resourceId: resource.id,
    data: {
      owner: owner.username,
      kind: kind.kind,
      name: resource.name,
      url:
        kind.url?.(env, owner.username, resource.name) ??
        `${env.PUBLIC_ORIGIN}/v1/users/${owner.username}/${kind.collection}/${resource.name}`,
      ...extra,
    },
  });
}
