/**
 * Fixtures for the docs suites: groups with members written straight into the core
 * `groups`/`members` tables of the real local D1 (the permission check reads exactly
 * these), and small valid files for each asset type.
 */
import { env } from 'cloudflare:workers';
import { drizzle } from 'drizzle-orm/d1';
import { eq } from 'drizzle-orm';
import { groups, members, users } from '../../src/db/schema';
import { unique } from './helpers';

const db = () => drizzle(env.DB);

export type MemberState = 'active' | 'pending' | 'declined';

/** Creates a user group @owner~slug (or an org group +org~slug) with the given members. */
export async function makeGroup(
  owner: string,
  memberList: { username: string; state?: MemberState; role?: 'founders' | 'admins' | 'superusers' | 'members' }[] = [],
  opts: { org?: string } = {},
): Promise<{ ref: string; id: number }> {
  const now = new Date().toISOString();
  const slug = unique('g').slice(0, 30);
  const ownerRow = await db().select().from(users).where(eq(users.username, owner)).get();
  if (!ownerRow) throw new Error(`no user ${owner}`);
  let parentId: number | null = null;
  if (opts.org) {
    const org = await db().select().from(groups).where(eq(groups.ref, `+${opts.org}`)).get();
    parentId = org?.id ?? (await db().insert(groups).values({ kind: 'org', slug: opts.org, owner_id: ownerRow.id, ref: `+${opts.org}`, created_on: now, last_modified: now }).returning().get()).id;
  }
  const ref = opts.org ? `+${opts.org}~${slug}` : `@${owner}~${slug}`;
  const g = await db()
    .insert(groups)
    .values({ kind: opts.org ? 'org_group' : 'user_group', slug, owner_id: ownerRow.id, parent_id: parentId, ref, created_on: now, last_modified: now })
    .returning()
    .get();
  await db().insert(members).values({ group_id: g.id, user_id: ownerRow.id, role: 'founders', state: 'active', created_on: now, last_modified: now });
  for (const m of memberList) {
    const u = await db().select().from(users).where(eq(users.username, m.username)).get();
    await db().insert(members).values({ group_id: g.id, user_id: u!.id, role: m.role ?? 'members', state: m.state ?? 'active', created_on: now, last_modified: now });
  }
  return { ref, id: g.id };
}

/** An organisation (core `groups` row of kind org) owned by `owner`. */
export async function makeOrg(owner: string): Promise<string> {
  const now = new Date().toISOString();
  const slug = unique('o').slice(0, 30);
  const ownerRow = await db().select().from(users).where(eq(users.username, owner)).get();
  await db().insert(groups).values({ kind: 'org', slug, owner_id: ownerRow!.id, ref: `+${slug}`, created_on: now, last_modified: now });
  return slug;
}

const bytes = (...parts: (number[] | string)[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)));

/** A 1x1 PNG. */
export const PNG = Uint8Array.from(atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='), (c) => c.charCodeAt(0));
export const FILES: Record<string, Uint8Array<ArrayBuffer>> = {
  'image/png': PNG,
  'image/jpeg': bytes([0xff, 0xd8, 0xff, 0xe0, 0, 0x10], 'JFIF', [0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xd9]),
  'image/gif': bytes('GIF89a', [1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x21, 0xf9, 4, 1, 0, 0, 0, 0, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 1, 0, 0x3b]),
  'image/svg+xml': new TextEncoder().encode('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><rect width="1" height="1"/></svg>\n'),
  'image/webp': bytes('RIFF', [26, 0, 0, 0], 'WEBPVP8L', [13, 0, 0, 0, 0x2f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
  'font/woff': bytes('wOFF', [0, 1, 0, 0, 0, 0, 0, 44]),
  'font/woff2': bytes('wOF2', [0, 1, 0, 0, 0, 0, 0, 48]),
  'font/ttf': bytes([0, 1, 0, 0, 0, 4, 0, 0x80]),
  'font/otf': bytes('OTTO', [0, 4, 0, 0x80]),
};
