/**
 * The events of the shared resource code (core/events.ts): `<kind>.created` (also a copy,
 * with `copied_from`), `.updated` (an entry written or cleared; a rename, with
 * `renamed_from`) and `.deleted` for documents, grids and mails. Thin: the owner, the kind,
 * the name and the resource's url; never its content. Each is recorded in the batch of the
 * change it reports.
 */
import type { Resource, User } from '../../db/schema';
import type { EventType, PlatformEvent } from '../events';
import type { ResourceKind } from './kind';

const PREFIX: Partial<Record<ResourceKind['kind'], string>> = { doc: 'document', grid: 'grid', mail: 'mail' };

/** The event, or null for a kind without events. */
export function resourceEventOf(
  env: Env,
  kind: ResourceKind,
  owner: User,
  resource: Resource,
  action: 'created' | 'updated' | 'deleted',
  extra: Record<string, unknown> = {},
): PlatformEvent | null {
  const prefix = PREFIX[kind.kind];
  if (!prefix) return null;
  return {
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
  };
}
