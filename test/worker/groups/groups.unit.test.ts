import { describe, expect, it } from 'vitest';
import {
  decideRoleDelete,
  decideRolePut,
  maskProblem,
  parseGroupRef,
  parseInboundAddress,
  parseRole,
  type Membership,
  type RoleMoveInput,
} from '../../../src/groups/model';
import { decideView, type ViewInput } from '../../../src/groups/visibility';
import { sniffType } from '../../../src/core/sniff';
import type { Role } from '../../../src/db/schema';

const active = (role: Role): Membership => ({ role, state: 'active' });
const put = (o: Partial<RoleMoveInput>): ReturnType<typeof decideRolePut> =>
  decideRolePut({
    caller: null,
    callerOrgManager: false,
    self: false,
    target: null,
    wanted: 'members',
    isOpen: false,
    ...o,
  });

describe('invite rule: founders and admins manage; nobody grants a role above their own', () => {
  const roles: Role[] = ['founders', 'admins', 'superusers', 'members'];
  it.each([
    ['founders', ['invite', 'invite', 'invite', 'invite']],
    ['admins', ['refuse', 'invite', 'invite', 'invite']],
    ['superusers', ['refuse', 'refuse', 'refuse', 'refuse']],
    ['members', ['refuse', 'refuse', 'refuse', 'refuse']],
  ] as const)('an active %s inviting a new user into founders, admins, superusers, members', (mine, expected) => {
    expect(roles.map((wanted) => put({ caller: active(mine), wanted }).kind)).toEqual(expected);
  });
  it('a pending invitee, an org admin without a role and an outsider cannot invite others (403)', () => {
    expect(put({ caller: { role: 'admins', state: 'pending' } })).toMatchObject({ kind: 'refuse', status: 403 });
    expect(put({ callerOrgManager: true })).toMatchObject({ kind: 'refuse', status: 403 });
    expect(put({})).toMatchObject({ kind: 'refuse', status: 403 });
  });
  it('an admin cannot change or re-invite someone ranked above them', () => {
    expect(put({ caller: active('admins'), target: active('founders'), wanted: 'members' })).toMatchObject({
      kind: 'refuse',
      status: 403,
    });
    expect(
      put({ caller: active('admins'), target: { role: 'founders', state: 'pending' }, wanted: 'admins' }),
    ).toMatchObject({ status: 403 });
  });
  it('promotion and demotion of an active member is a change; a pending or declined one is re-invited', () => {
    expect(put({ caller: active('admins'), target: active('members'), wanted: 'superusers' }).kind).toBe('change');
    expect(put({ caller: active('founders'), target: active('admins'), wanted: 'members' }).kind).toBe('change');
    expect(
      put({ caller: active('admins'), target: { role: 'members', state: 'pending' }, wanted: 'admins' }).kind,
    ).toBe('reinvite');
    expect(
      put({ caller: active('admins'), target: { role: 'members', state: 'declined' }, wanted: 'members' }).kind,
    ).toBe('reinvite');
  });
  it('putting someone into the role they hold or are invited to is a 409', () => {
    expect(put({ caller: active('founders'), target: active('members'), wanted: 'members' })).toMatchObject({
      status: 409,
    });
    expect(put({ caller: active('founders'), target: { role: 'members', state: 'pending' } })).toMatchObject({
      status: 409,
    });
  });
  it('an org founder or admin claims any role of a group of their org at once', () => {
    for (const wanted of roles) expect(put({ self: true, callerOrgManager: true, wanted }).kind).toBe('activate');
  });
  it('members step down but never raise their own role', () => {
    expect(put({ self: true, caller: active('admins'), target: active('admins'), wanted: 'members' }).kind).toBe(
      'change',
    );
    expect(put({ self: true, caller: active('members'), target: active('members'), wanted: 'admins' })).toMatchObject({
      status: 403,
    });
  });
  it('anyone joins an open group as members only; a closed group needs an invite', () => {
    expect(put({ self: true, isOpen: true }).kind).toBe('activate');
    expect(put({ self: true, isOpen: true, wanted: 'admins' })).toMatchObject({ status: 403 });
    expect(put({ self: true })).toMatchObject({ status: 403 });
    expect(
      put({ self: true, isOpen: true, target: { role: 'members', state: 'pending' }, wanted: 'admins' }),
    ).toMatchObject({ status: 409 });
  });
});

describe('removal rule', () => {
  const del = (o: Partial<Parameters<typeof decideRoleDelete>[0]>) =>
    decideRoleDelete({ caller: null, self: false, target: null, wanted: 'members', ...o });
  it('removing a role the user does not hold is a 404', () => {
    expect(del({ caller: active('founders'), target: active('admins'), wanted: 'members' })).toMatchObject({
      ok: false,
      status: 404,
    });
    expect(del({ caller: active('founders'), target: { role: 'members', state: 'declined' } })).toMatchObject({
      status: 404,
    });
  });
  it('anyone leaves their own role; managers remove those not above them', () => {
    expect(del({ self: true, target: active('members') }).ok).toBe(true);
    expect(del({ caller: active('admins'), target: active('admins'), wanted: 'admins' }).ok).toBe(true);
    expect(del({ caller: active('admins'), target: { role: 'members', state: 'pending' } }).ok).toBe(true);
    expect(del({ caller: active('admins'), target: active('founders'), wanted: 'founders' })).toMatchObject({
      status: 403,
    });
    expect(del({ caller: active('superusers'), target: active('members') })).toMatchObject({ status: 403 });
  });
});

describe('visibility rule', () => {
  const base: ViewInput = {
    kind: 'user_group',
    membership: null,
    orgRole: null,
    inChildGroup: false,
    options: new Set(),
    parentPublic: true,
    premium: false,
  };
  const v = (o: Partial<ViewInput>) => decideView({ ...base, ...o });
  it('a private group is invisible to outsiders', () => {
    expect(v({}).visible).toBe(false);
    expect(v({ membership: { role: 'members', state: 'declined' } }).visible).toBe(false);
  });
  it('members see everything; only founders and admins manage', () => {
    expect(v({ membership: active('members') })).toMatchObject({
      visible: true,
      roster: true,
      profile: true,
      manage: false,
      role: 'members',
    });
    expect(v({ membership: active('admins') }).manage).toBe(true);
  });
  it('org founders and admins see every group of their org with its roster, read-only', () => {
    expect(v({ kind: 'org_group', orgRole: 'admins' })).toMatchObject({
      visible: true,
      roster: true,
      insider: true,
      manage: false,
      oversight: true,
    });
    expect(v({ kind: 'org_group', orgRole: 'superusers' }).visible).toBe(false);
  });
  it('a pending invitee sees the group and its profile, not its roster', () => {
    expect(v({ membership: { role: 'members', state: 'pending' } })).toMatchObject({
      visible: true,
      profile: true,
      roster: false,
      role: null,
      pending: true,
    });
  });
  it('public groups show profile, description and members only as their options say', () => {
    expect(v({ options: new Set(['public']) })).toMatchObject({
      visible: true,
      profile: false,
      description: false,
      roster: false,
    });
    expect(v({ options: new Set(['public', 'show_profile', 'show_description', 'show_members']) })).toMatchObject({
      profile: true,
      description: true,
      roster: true,
    });
  });
  it('show_* options of orgs and org groups count only on a premium plan', () => {
    const opts = new Set(['public', 'show_members']);
    expect(v({ kind: 'org', options: opts }).roster).toBe(false);
    expect(v({ kind: 'org', options: opts, premium: true }).roster).toBe(true);
  });
  it('a public org group of a private org stays hidden', () => {
    expect(v({ kind: 'org_group', options: new Set(['public']), parentPublic: false }).visible).toBe(false);
  });
  it('members of any group of an org see the org', () => {
    expect(v({ kind: 'org', inChildGroup: true })).toMatchObject({ visible: true, roster: false });
  });
});

describe('names, references, masks and addresses', () => {
  it('roles are founders, admins, superusers, members', () => {
    expect(parseRole('admins')).toBe('admins');
    expect(() => parseRole('owners')).toThrowError(expect.objectContaining({ status: 400 }));
  });
  it('group references', () => {
    expect(parseGroupRef('@alice~team').kind).toBe('user_group');
    expect(parseGroupRef('+acme~sales').kind).toBe('org_group');
    expect(parseGroupRef('+acme').kind).toBe('org');
    for (const bad of ['acme', '@alice', '+Acme', '+a~b~c', '@a~b c'])
      expect(() => parseGroupRef(bad)).toThrowError(expect.objectContaining({ status: 400 }));
  });
  it('masks are x,y,r with r > 0', () => {
    expect(maskProblem('120,80,64')).toBeNull();
    expect(maskProblem('0.5, 0.5, 0.25')).toBeNull();
    for (const bad of ['', '1,2', '1,2,3,4', '-1,2,3', 'a,b,c', '1,2,0', '1,2,3\n'])
      expect(maskProblem(bad)).toMatch(/mask/);
  });
  it('inbound addresses are <group>@<org>.<domain>', () => {
    expect(parseInboundAddress('Sales@Acme.mail.example', 'mail.example')).toEqual({ org: 'acme', group: 'sales' });
    expect(parseInboundAddress('sales@acme.other.example', 'mail.example')).toBeNull();
    expect(parseInboundAddress('sales@mail.example', 'mail.example')).toBeNull();
    expect(parseInboundAddress('sa les@acme.mail.example', 'mail.example')).toBeNull();
  });
});

describe('content sniffing', () => {
  const bytes = (...b: number[]) => new Uint8Array(b);
  const text = (s: string) => new TextEncoder().encode(s);
  it('recognises the accepted image and font types by their first bytes', () => {
    expect(sniffType(bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0))).toBe('image/png');
    expect(sniffType(bytes(0xff, 0xd8, 0xff, 0xe0))).toBe('image/jpeg');
    expect(sniffType(text('GIF89a....'))).toBe('image/gif');
    expect(sniffType(text('RIFF\0\0\0\0WEBPVP8 '))).toBe('image/webp');
    expect(sniffType(text('<?xml version="1.0"?>\n<!-- x --><svg xmlns="http://www.w3.org/2000/svg"/>'))).toBe(
      'image/svg+xml',
    );
    expect(sniffType(text('wOFF....'))).toBe('font/woff');
    expect(sniffType(text('wOF2....'))).toBe('font/woff2');
    expect(sniffType(text('OTTO....'))).toBe('font/otf');
    expect(sniffType(bytes(0, 1, 0, 0, 0))).toBe('font/ttf');
  });
  it('anything else is unknown', () => {
    expect(sniffType(text('hello'))).toBeNull();
    expect(sniffType(text('<html><svg/></html>'))).toBeNull();
    expect(sniffType(new Uint8Array())).toBeNull();
  });
});
