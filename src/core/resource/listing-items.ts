/** Listing items of resources (in a collection) and of what is inside one (its folders and files). */
import type { Resource } from '../../db/schema';
import { listEntries } from '../entries';
import { fileActions, filePerms, type ListingItem, type Verb } from '../listing';
import { permList, type Access } from '../perms';
import type { ResourceCtx, ResourceKind } from './kind';

/**
 * A listing item inside a resource. A file's permissions are what the caller can do to it
 * (a read-only entry is `r` even for the owner); a folder carries the caller's permissions
 * on the resource.
 */
export function listingItem(
  rc: Pick<ResourceCtx, 'access'>,
  name: string,
  uri: string,
  type: 'dir' | 'file',
  actions: Verb[],
  created: string,
  modified: string,
): ListingItem {
  return {
    name,
    uri,
    type,
    permissions: type === 'file' ? filePerms(actions) : permList(rc.access),
    actions,
    created_on: created,
    last_modified: modified,
  };
}

function resourceActions(a: Access): Verb[] {
  const out: Verb[] = ['GET'];
  if (a.r) out.push('PATCH'); // copy needs read; rename needs ownership (checked on use)
  if (a.d) out.push('DELETE');
  return out;
}

/** A resource as an item of its collection (`uriBase`: the collection's path). */
export function resourceItem(
  kind: ResourceKind,
  uriBase: string,
  r: Pick<Resource, 'name' | 'created_on' | 'last_modified'>,
  a: Access,
): ListingItem {
  return {
    name: r.name,
    uri: `${uriBase}/${r.name}`,
    type: 'dir',
    permissions: permList(a),
    actions: resourceActions(a),
    created_on: r.created_on,
    last_modified: r.last_modified,
  };
}

/** The listing of a folder (`''` = the resource root, `config/` = its config folder). */
export async function folderItems(rc: ResourceCtx, prefix: string): Promise<ListingItem[]> {
  const { kind, resource } = rc;
  const stored = new Map((rc.preloaded?.listing ?? (await listEntries(rc.db, resource.id))).map((e) => [e.path, e]));
  const items = new Map<string, ListingItem>();
  const perms = permList(rc.access);
  const add = (
    name: string,
    type: 'dir' | 'file',
    actions: Verb[],
    created = resource.created_on,
    modified = resource.last_modified,
  ) => {
    if (!items.has(name))
      items.set(name, listingItem(rc, name, `${rc.base}/${prefix}${name}`, type, actions, created, modified));
  };
  for (const e of kind.entries) {
    if (!e.path.startsWith(prefix)) continue;
    const rest = e.path.slice(prefix.length);
    const slash = rest.indexOf('/');
    if (slash >= 0) add(rest.slice(0, slash), 'dir', ['GET']);
    else {
      const s = stored.get(e.path);
      add(rest, 'file', fileActions(perms, e.access), s?.created_on, s?.last_modified);
    }
  }
  // Area folders are listed in their parent folder (`config/env` in `config/`).
  for (const d of kind.folders ?? [])
    if (d.startsWith(prefix) && !d.slice(prefix.length).includes('/')) add(d.slice(prefix.length), 'dir', ['GET']);
  if (prefix === '') {
    // A per-caller file (`own`) is the caller's own: reading the resource is enough to change it.
    for (const f of kind.files ?? [])
      add(f.name, 'file', f.access === 'own' ? ['GET', 'POST', 'DELETE'] : fileActions(perms, f.access));
    if (kind.log) add('log', 'file', ['GET']);
    add('shared', 'dir', ['GET']);
    // Tags are the caller's own too: any reader adds them with PUT tags/<tag>.
    add('tags', 'dir', ['GET', 'PUT']);
  }
  return [...items.values()].sort((a, b) => a.name.localeCompare(b.name));
}
