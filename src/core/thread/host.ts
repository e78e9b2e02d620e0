/**
 * The host of threads (a resource, a group): what it tells the thread routes (ThreadHost),
 * and what the routes derive from it for a request (may the caller write, which thread a
 * segment names, a listing item below its threads).
 */
import type { Ctx } from '../context';
import { forbidden } from '../errors';
import type { ListingItem, Verb } from '../listing';
import { threadNamed } from './lookup';
import type { ThreadRights, ThreadSubject } from './rules';

export interface ThreadHost<C extends Ctx> {
  /** The word users see in summaries (`document`, `group`). */
  noun: string;
  subject: (c: C) => ThreadSubject;
  /** Path of the subject as the caller addressed it; threads are at `<base>/threads`. */
  base: (c: C) => string;
  /** The caller's rights; throws (404) when the caller may not see the threads at all. */
  rights: (c: C) => ThreadRights;
  /** Why the caller may not open a thread or comment (403), or null when they may. */
  writeRefusal: (c: C) => string | null | Promise<string | null>;
}

/** 403 when the host refuses the caller a write now. */
export async function mayWrite<C extends Ctx>(host: ThreadHost<C>, c: C): Promise<void> {
  const why = await host.writeRefusal(c);
  if (why) throw forbidden(why);
}

/** A listing item below the subject's threads. */
export function threadItem<C extends Ctx>(
  host: ThreadHost<C>,
  c: C,
  rights: ThreadRights,
  name: string,
  path: string,
  type: 'dir' | 'file',
  actions: Verb[],
  createdOn: string,
  modified: string,
): ListingItem {
  return {
    name,
    uri: `${host.base(c)}/threads/${path}`,
    type,
    permissions: rights.permissions,
    actions,
    created_on: createdOn,
    last_modified: modified,
  };
}

/** The thread a path segment names, for the caller (lookup.ts). */
export function threadOf<C extends Ctx>(host: ThreadHost<C>, c: C, segment: string) {
  return threadNamed(host.subject(c), c.caller!.id, segment);
}
