import { describe, expect, it } from 'vitest';
import { accessFromGrants } from '../../../src/core/perms';
import { parseShareEntry } from '../../../src/core/sharing';
import { normalisePath } from '../../../src/core/serve';
import { RESOURCE_NAME, USERNAME, TOKEN_NAME } from '../../../src/core/names';
import { checkTag } from '../../../src/core/resource';
import { timingSafeEqual } from '../../../src/core/crypto';
import { d1Chunks } from '../../../src/core/entries';

describe('sharing entries parse as written', () => {
  it.each([
    ['public', null, null, 'r'],
    ['@alice~team', '@alice~team', 'user_group', 'r'],
    ['+acme~sales', '+acme~sales', 'org_group', 'r'],
    ['+acme~sales~rw', '+acme~sales', 'org_group', 'rw'],
    ['+acme', '+acme', 'org', 'r'],
    ['@alice~team~wr', '@alice~team', 'user_group', 'rw'],
  ])('%s', (entry, ref, type, perms) => {
    const p = parseShareEntry(entry);
    expect(p).toEqual({ entry, groupRef: ref, groupType: type, perms });
  });
  it.each(['', 'Public', '@alice', 'alice~team', '+acme~sales~rq', '@Alice~team', '+acme~sales~rr', '@a~b c'])(
    'rejects %j with 400',
    (entry) => {
      expect(() => parseShareEntry(entry)).toThrowError(expect.objectContaining({ status: 400 }));
    },
  );
});

describe('permission model folds share grants', () => {
  it('a public share grants read only, and only via public', () => {
    expect(accessFromGrants('doc', [{ group_id: null, perms: 'r', role: null }])).toMatchObject({
      r: true,
      w: false,
      d: false,
      x: false,
      viaPublicOnly: true,
    });
  });
  it('a group share grants nothing to a non-member (pending/declined rows never join)', () => {
    expect(accessFromGrants('doc', [{ group_id: 4, perms: 'rw', role: null }]).r).toBe(false);
  });
  it('a group share grants read to an accepted member; ~rw adds write; never delete', () => {
    expect(accessFromGrants('doc', [{ group_id: 4, perms: 'r', role: 'members' }])).toMatchObject({
      r: true,
      w: false,
      d: false,
      viaPublicOnly: false,
    });
    expect(accessFromGrants('doc', [{ group_id: 4, perms: 'rw', role: 'members' }])).toMatchObject({
      r: true,
      w: true,
      d: false,
    });
  });
  it('job shares: superusers, admins and founders execute; members only read', () => {
    for (const role of ['superusers', 'admins', 'founders'])
      expect(accessFromGrants('job', [{ group_id: 1, perms: 'r', role }]).x).toBe(true);
    expect(accessFromGrants('job', [{ group_id: 1, perms: 'r', role: 'members' }]).x).toBe(false);
    expect(accessFromGrants('doc', [{ group_id: 1, perms: 'r', role: 'founders' }]).x).toBe(false);
  });
  it('public plus group share is not public-only', () => {
    expect(
      accessFromGrants('job', [
        { group_id: null, perms: 'r', role: null },
        { group_id: 2, perms: 'r', role: 'members' },
      ]).viaPublicOnly,
    ).toBe(false);
  });
});

describe('tolerant paths', () => {
  it.each([
    ['/v1//admin/groups/', '/v1/admin/groups'],
    ['/v1/whoami/', '/v1/whoami'],
    ['//v1///whoami', '/v1/whoami'],
    ['/', '/'],
  ])('%s -> %s', (input, out) => {
    expect(new URL(normalisePath(new Request(`http://x${input}`)).url).pathname).toBe(out);
  });
});

describe('names', () => {
  it('resource names are lowercase alphanumeric with underscores', () => {
    for (const ok of ['a', 'doc_1', '0x']) expect(RESOURCE_NAME.test(ok)).toBe(true);
    for (const bad of ['', 'A', 'a-b', 'a b', '_a', 'a.b', 'é']) expect(RESOURCE_NAME.test(bad)).toBe(false);
  });
  it('usernames are 1-64 of [a-z0-9_]', () => {
    expect(USERNAME.test('a'.repeat(64))).toBe(true);
    expect(USERNAME.test('a'.repeat(65))).toBe(false);
    expect(USERNAME.test('Bob')).toBe(false);
  });
  it('token names match ^[a-z][a-z0-9._-]*$', () => {
    expect(TOKEN_NAME.test('cli-1.2_x')).toBe(true);
    expect(TOKEN_NAME.test('1cli')).toBe(false);
  });
  it('tags: system, +user and =category tags', () => {
    for (const t of ['fav', 'like', 'ignore', 'wip', 'archived', '+mine', '=finance']) expect(checkTag(t)).toBe(t);
    for (const t of ['star', '+', '=A', 'fav ']) expect(() => checkTag(t)).toThrow();
  });
});

describe('constant-time comparison', () => {
  it('compares equal and unequal strings', () => {
    expect(timingSafeEqual('abc', 'abc')).toBe(true);
    expect(timingSafeEqual('abc', 'abd')).toBe(false);
    expect(timingSafeEqual('abc', 'abcd')).toBe(false);
  });
});

describe('D1 statements bind at most 100 values', () => {
  it('d1Chunks splits rows so that rows x columns stays within 100', () => {
    const rows = Array.from({ length: 30 }, (_, i) => i);
    expect(d1Chunks(rows, 4).map((c) => c.length)).toEqual([25, 5]);
    expect(d1Chunks(rows, 7).every((c) => c.length * 7 <= 100)).toBe(true);
    expect(d1Chunks(rows, 7).flat()).toEqual(rows);
    expect(d1Chunks([], 4)).toEqual([]);
  });
});
