/**
 * Recipient lists (recipients/to|cc|bcc): validated as a whole when written (atomic: one
 * bad item rejects the write), resolved to addresses when a mail is sent.
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../core/context';
import type { BatchItem } from 'drizzle-orm/batch';
import { entriesQuery, entryValues, writerOf, type StoredAuthorship } from '../core/entries';
import { composedReads, principals } from '../core/resource';
import { groups, members, users, type User } from '../db/schema';
import { activeMembers } from '../groups/members';
import {
  normaliseAddress,
  parseRecipientList,
  planOf,
  RECIPIENT_LISTS,
  type RecipientList,
  type Rejected,
} from './rules';

/** The reason for a group line that names no group the mail's owner holds an active role in (unknown ones alike). */
const noSuchGroup = (ref: string) =>
  `no such group: ${ref} (a mail goes only to groups its owner holds an active role in)`;

/** IN lists of at most 90 values: D1 binds at most 100 parameters, the rest of the query included. */
const chunks = <T>(values: T[]): T[][] =>
  Array.from({ length: Math.ceil(values.length / 90) }, (_, i) => values.slice(i * 90, i * 90 + 90));

async function chunked<T, R>(values: T[], fn: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  const out: R[] = [];
  for (const c of chunks(values)) out.push(...(await fn(c)));
  return out;
}

/**
 * Every problem of a list about to be written to recipients/<list> of a mail owned by
 * `owner`: syntax, unknown users, groups that are unknown or that the owner holds no active
 * role in (one answer for both), and direct addresses beyond the owner's plan allowance (counted across to, cc and
 * bcc).
 */
export async function checkRecipientList(
  env: Env,
  db: Db,
  resourceId: number,
  owner: User,
  list: RecipientList,
  text: string,
  stored?: Map<string, string>,
): Promise<Rejected[]> {
  const { items, rejected } = parseRecipientList(text);
  const names = [...new Set(items.flatMap(({ item }) => (item.kind === 'user' ? [item.username] : [])))];
  const refs = [...new Set(items.flatMap(({ item }) => (item.kind === 'group' ? [item.ref] : [])))];
  // Users, groups with the owner's active membership, and the stored lists: one D1 round trip.
  const userQueries = chunks(names).map((c) =>
    db.select({ u: users.username }).from(users).where(inArray(users.username, c)),
  );
  const groupQueries = chunks(refs).map((c) =>
    db
      .select({ id: groups.id, ref: groups.ref, member: members.group_id })
      .from(groups)
      .leftJoin(
        members,
        and(eq(members.group_id, groups.id), eq(members.user_id, owner.id), eq(members.state, 'active')),
      )
      .where(inArray(groups.ref, c)),
  );
  const storedQuery = stored ? [] : [entriesQuery(db, resourceId, 'recipients/')];
  const batch: BatchItem<'sqlite'>[] = [...userQueries, ...groupQueries, ...storedQuery];
  const results = (
    batch.length ? await db.batch(batch as [BatchItem<'sqlite'>, ...BatchItem<'sqlite'>[]]) : []
  ) as unknown[][];
  const known = new Set((results.slice(0, userQueries.length).flat() as { u: string }[]).map((r) => r.u));
  const found = results.slice(userQueries.length, userQueries.length + groupQueries.length).flat() as {
    id: number;
    ref: string;
    member: number | null;
  }[];
  const groupIds = new Map(found.map((g) => [g.ref, g.id]));
  const joined = new Set(found.filter((g) => g.member !== null).map((g) => g.id));
  const others = stored ?? (await entryValues(env, results[batch.length - 1] as Parameters<typeof entryValues>[1]));
  let direct = 0;
  for (const l of RECIPIENT_LISTS) {
    if (l === list) continue;
    direct += parseRecipientList(others.get(`recipients/${l}`) ?? '').items.filter(
      (i) => i.item.kind === 'address',
    ).length;
  }
  const allowance = planOf(owner).direct;
  for (const { line, item } of items) {
    if (item.kind === 'user' && !known.has(item.username))
      rejected.push({ line, reason: `no such user: ${item.username}` });
    if (item.kind === 'group') {
      const id = groupIds.get(item.ref);
      // An unknown group and one the owner holds no active role in read the same: nothing tells which groups exist.
      if (id === undefined || !joined.has(id)) rejected.push({ line, reason: noSuchGroup(item.ref) });
    }
    if (item.kind === 'address' && ++direct > allowance) {
      rejected.push({
        line,
        reason: `over the ${owner.plan} plan's allowance of ${allowance} direct addresses (across to, cc and bcc)`,
      });
    }
  }
  return rejected;
}

export interface Resolved {
  /** Unique normalised addresses in list order (to, then cc, then bcc). */
  addresses: string[];
  /** Why items reached nobody (unverified users, vanished groups). */
  notes: string[];
  /**
   * Each address as the lists wrote it (`@user`, a group reference, `me`, or the address
   * itself): what the log and the unsubscribe line name, never another account's address.
   */
  written: Map<string, string>;
}

/** Who wrote each non-empty recipient list (its writer, the owner when the platform wrote it): a send lends their rights. */
export function listWriters(
  stored: Map<string, string>,
  authorship: ReadonlyMap<string, StoredAuthorship>,
  ownerId: number,
): number[] {
  return [
    ...new Set(
      RECIPIENT_LISTS.flatMap((l) =>
        parseRecipientList(stored.get(`recipients/${l}`) ?? '').items.length
          ? [writerOf(authorship.get(`recipients/${l}`)?.written_by, ownerId)]
          : [],
      ),
    ),
  ];
}

/**
 * The stored lists of a mail, resolved now: verified addresses of users and active members
 * of the groups that the owner and the list's writer both still hold an active role in
 * (composition path `mail.recipients`). `stored`: the mail's entries (delivery has read them
 * with the mail), `authorship`: who wrote them.
 */
export async function resolveStoredRecipients(
  db: Db,
  owner: User,
  stored: Map<string, string>,
  authorship: ReadonlyMap<string, StoredAuthorship>,
): Promise<Resolved> {
  const lists = RECIPIENT_LISTS.map((l) => ({
    items: parseRecipientList(stored.get(`recipients/${l}`) ?? '').items,
    writer: writerOf(authorship.get(`recipients/${l}`)?.written_by, owner.id),
  }));
  const items = lists.flatMap((l) => l.items.map((i) => ({ ...i, writer: l.writer })));
  const names = [...new Set(items.flatMap(({ item: i }) => (i.kind === 'user' ? [i.username] : [])))];
  const groupItems = items.filter((i) => i.item.kind === 'group');
  const refs = [...new Set(groupItems.map(({ item: i }) => (i.kind === 'group' ? i.ref : '')))];
  const byName = new Map(
    (await chunked(names, (c) => db.select().from(users).where(inArray(users.username, c)))).map((u) => [
      u.username,
      u,
    ]),
  );
  // A group reaches its members only while the owner and the list's writer hold an active role in it.
  const { verdicts, also } = await composedReads(
    db,
    groupItems.map(({ line, item, writer }) => ({
      path: 'mail.recipients' as const,
      principals: principals(owner.id, writer),
      ref: { kind: 'group' as const, ref: item.kind === 'group' ? item.ref : '', as: line },
    })),
    refs.length
      ? [
          db
            .select({ id: groups.id, ref: groups.ref })
            .from(groups)
            .where(sql`${groups.ref} in (select value from json_each(${JSON.stringify(refs)}))`),
        ]
      : [],
  );
  const ids = new Map(((also[0] ?? []) as { id: number; ref: string }[]).map((g) => [g.ref, g.id]));
  const usable = new Map(groupItems.map((g, i) => [g, verdicts[i]!.ok]));
  const notes: string[] = [];
  const out = new Set<string>();
  const written = new Map<string, string>();
  // The first item that reached an address names it.
  const add = (address: string, as: string) => {
    const a = normaliseAddress(address);
    out.add(a);
    if (!written.has(a)) written.set(a, as);
  };
  const addUser = (u: User | undefined, what: string) => {
    if (u?.email && u.email_verified) add(u.email, what);
    else notes.push(`${what}: no verified address`);
  };
  for (const entry of items) {
    const { item } = entry;
    if (item.kind === 'address') add(item.address, item.address);
    else if (item.kind === 'me') addUser(owner, 'me');
    else if (item.kind === 'user') addUser(byName.get(item.username), `@${item.username}`);
    else {
      const id = usable.get(entry) ? ids.get(item.ref) : undefined;
      if (id === undefined) {
        notes.push(noSuchGroup(item.ref));
        continue;
      }
      const active = await activeMembers(db, id);
      const before = out.size;
      for (const m of active) if (m.user.email && m.user.email_verified) add(m.user.email, item.ref);
      const unverified = active.filter((m) => !(m.user.email && m.user.email_verified)).length;
      if (unverified) notes.push(`${item.ref}: ${unverified} member(s) without a verified address`);
      if (out.size === before && !active.length) notes.push(`${item.ref}: no active members`);
    }
  }
  return { addresses: [...out], notes, written };
}
