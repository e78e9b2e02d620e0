/**
 * Fixtures for the docs suites: groups with members made through the groups HTTP API
 * (create, invite, accept or decline), small valid files for each asset type, and
 * documents (new, or shared with a group member) with the requests the suites make on them.
 */
import { expect } from 'vitest';
import { call, makeUser, unique, type TestUser } from '../helpers';

export type MemberState = 'active' | 'pending' | 'declined';

async function ok(res: Promise<Response>, what: string): Promise<void> {
  const r = await res;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${await r.text()}`);
}

/** An organisation, created by a fresh organisation account (returned as owner). */
export async function makeOrg(): Promise<{ slug: string; owner: TestUser }> {
  const owner = await makeUser({ account: 'organisation' }, 'org');
  const slug = unique('o').slice(0, 30);
  await ok(call('PUT', `/v1/admin/orgs/${slug}`, { token: owner.token }), 'create org');
  return { slug, owner };
}

/**
 * A user group @owner~slug (or, with `org`, an organisation group +org~slug made by the
 * organisation's owner) whose members were invited and then accepted (active), left
 * pending, or declined.
 */
export async function makeGroup(
  owner: TestUser,
  memberList: { user: TestUser; state?: MemberState }[] = [],
  opts: { org?: { slug: string; owner: TestUser } } = {},
): Promise<{ ref: string }> {
  const slug = unique('g').slice(0, 30);
  const admin = opts.org?.owner ?? owner;
  const base = opts.org ? `/v1/admin/orgs/${opts.org.slug}/groups/${slug}` : `/v1/admin/groups/${slug}`;
  const ref = opts.org ? `+${opts.org.slug}~${slug}` : `@${owner.username}~${slug}`;
  await ok(call('PUT', base, { token: admin.token }), 'create group');
  for (const m of memberList) {
    await ok(call('PUT', `${base}/roles/members/${m.user.username}`, { token: admin.token }), 'invite');
    const state = m.state ?? 'active';
    if (state !== 'pending')
      await ok(
        call('POST', `/v1/admin/invites/${ref}/accept`, {
          token: m.user.token,
          text: state === 'active' ? 'yes' : 'no',
        }),
        'answer invite',
      );
  }
  return { ref };
}

/** UTF-8 bytes of `text`, in an ArrayBuffer of their own (what an upload body is typed as). */
export const utf8 = (text: string) => new Uint8Array(new TextEncoder().encode(text));

const bytes = (...parts: (number[] | string)[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === 'string' ? [...p].map((c) => c.charCodeAt(0)) : p)));

/** A 1x1 PNG. */
export const PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);
export const FILES: Record<string, Uint8Array<ArrayBuffer>> = {
  'image/png': PNG,
  'image/jpeg': bytes([0xff, 0xd8, 0xff, 0xe0, 0, 0x10], 'JFIF', [0, 1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xd9]),
  'image/gif': bytes(
    'GIF89a',
    [
      1, 0, 1, 0, 0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0x21, 0xf9, 4, 1, 0, 0, 0, 0, 0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0,
      2, 2, 0x44, 1, 0, 0x3b,
    ],
  ),
  'image/svg+xml': utf8(
    '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><rect width="1" height="1"/></svg>\n',
  ),
  'image/webp': bytes('RIFF', [26, 0, 0, 0], 'WEBPVP8L', [13, 0, 0, 0, 0x2f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
  'font/woff': bytes('wOFF', [0, 1, 0, 0, 0, 0, 0, 44]),
  'font/woff2': bytes('wOF2', [0, 1, 0, 0, 0, 0, 0, 48]),
  'font/ttf': bytes([0, 1, 0, 0, 0, 4, 0, 0x80]),
  'font/otf': bytes('OTTO', [0, 4, 0, 0x80]),
};

export const MiB = 1024 * 1024;

export async function newDoc(u: TestUser, content?: string): Promise<{ name: string; path: string }> {
  const name = unique('d');
  const res = await call('PUT', `/v1/vis/docs/${name}`, { token: u.token });
  expect(res.status).toBe(201);
  if (content !== undefined)
    expect((await call('POST', `/v1/vis/docs/${name}/content`, { token: u.token, text: content })).status).toBe(204);
  return { name, path: `/v1/vis/docs/${name}` };
}

/** A document of a fresh owner shared with a group holding one accepted member (read only). */
export async function sharedDoc(content?: string) {
  const owner = await makeUser();
  const member = await makeUser();
  const g = await makeGroup(owner, [{ user: member }]);
  const { name, path } = await newDoc(owner, content);
  expect((await call('PUT', `${path}/shared/${g.ref}`, { token: owner.token })).status).toBe(201);
  return { owner, member, name, path, theirs: `/v1/users/${owner.username}/vis/docs/${name}` };
}

export const text = async (res: Response) => ({ status: res.status, body: await res.text() });

export const names = async (res: Response) => ((await res.json()) as { name: string }[]).map((i) => i.name);

export const upload = (u: TestUser | null, path: string, type: string, body: Uint8Array<ArrayBuffer>) =>
  call('POST', path, { token: u?.token, body, headers: { 'Content-Type': type } });
