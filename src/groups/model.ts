/**
 * Pure rules of the groups area: roles and who may move whom between them, option names,
 * profile value checks, group references and inbound addresses. No I/O here.
 */
import { ROLES, type Group, type Role } from '../db/schema';
import { badRequest } from '../core/errors';
import { GROUP_NAME, USERNAME } from '../core/names';

export type GroupKind = Group['kind'];
type MemberState = 'pending' | 'active' | 'declined';
export interface Membership {
  role: Role;
  state: MemberState;
}

/** Higher is more privileged: founders > admins > superusers > members. */
const ROLE_RANK: Record<Role, number> = { founders: 4, admins: 3, superusers: 2, members: 1 };
const MANAGING_ROLES: readonly Role[] = ['founders', 'admins'];
export const isManager = (role: Role | null | undefined): boolean => !!role && MANAGING_ROLES.includes(role);

export function parseRole(value: string): Role {
  if ((ROLES as readonly string[]).includes(value)) return value as Role;
  throw badRequest(`unknown role '${value}': roles are ${ROLES.join(', ')}`);
}

export function checkSlug(value: string, what = 'group name'): string {
  if (!GROUP_NAME.test(value))
    throw badRequest(
      `invalid ${what} '${value}': lowercase letters, digits, '-' and '_', no spaces, at most 64 characters (${GROUP_NAME.source})`,
    );
  return value;
}

export function checkUsername(value: string): string {
  if (!USERNAME.test(value))
    throw badRequest(`invalid username '${value}': lowercase letters, digits and underscores, 1-64 characters`);
  return value;
}

export const userGroupRef = (owner: string, slug: string) => `@${owner}~${slug}`;
export const orgRef = (org: string) => `+${org}`;
export const orgGroupRef = (org: string, slug: string) => `+${org}~${slug}`;

const REF_RE =
  /^(?:@([a-z0-9_]{1,64})~([a-z0-9][a-z0-9_-]{0,63})|\+([a-z0-9][a-z0-9_-]{0,63})(?:~([a-z0-9][a-z0-9_-]{0,63}))?)$/;

/** A group reference `@user~group`, `+org~group` or `+org`; anything else is a 400. */
export function parseGroupRef(ref: string): { kind: GroupKind; ref: string } {
  const m = REF_RE.exec(ref);
  if (!m) throw badRequest(`invalid group reference '${ref}': expected @user~group, +org~group or +org`);
  return { kind: m[1] ? 'user_group' : m[4] ? 'org_group' : 'org', ref };
}

// ---------------------------------------------------------------- options

export const COMMON_OPTIONS = ['public', 'show_profile', 'show_description', 'show_members', 'is_open'] as const;
const PREMIUM_OPTIONS = ['show_profile', 'show_description', 'show_members'] as const;
/** Org-group options that make inbound mail need a passing DKIM / SPF result (src/jobs/mail-auth.ts). */
const MAIL_VERIFY_OPTIONS = ['mail_verify_dkim', 'mail_verify_spf'] as const;
export type OptionName =
  (typeof COMMON_OPTIONS)[number] | 'enable_subdomain' | 'allow_inbound_mail' | (typeof MAIL_VERIFY_OPTIONS)[number];

/** The options a group of this kind has. */
export function optionsFor(kind: GroupKind): OptionName[] {
  if (kind === 'org') return [...COMMON_OPTIONS, 'enable_subdomain'];
  if (kind === 'org_group') return [...COMMON_OPTIONS, 'allow_inbound_mail', ...MAIL_VERIFY_OPTIONS];
  return [...COMMON_OPTIONS];
}

/** show_* options of organisations and their groups need a premium plan. */
export const needsPremium = (kind: GroupKind, option: string): boolean =>
  kind !== 'user_group' && (PREMIUM_OPTIONS as readonly string[]).includes(option);

// ---------------------------------------------------------------- profile values

export const PROFILE_TEXT_LIMITS = { name: 256, description: 64 * 1024, 'picture/mask': 64 } as const;
export type ProfileText = keyof typeof PROFILE_TEXT_LIMITS;
export const PICTURES = { image: 2 * 1024 * 1024, banner: 5 * 1024 * 1024 } as const;
export type Picture = keyof typeof PICTURES;
export const PICTURE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;

const NUM = '(?:0|[1-9]\\d*)(?:\\.\\d+)?';
const MASK_RE = new RegExp(`^(${NUM}) *, *(${NUM}) *, *(${NUM})$`);

/** An avatar crop `x,y,r`: three non-negative decimal numbers, r above zero. Null when valid. */
export function maskProblem(value: string): string | null {
  const m = MASK_RE.exec(value);
  if (!m) return `invalid mask '${value.slice(0, 64)}': expected x,y,r as three non-negative numbers (e.g. 120,80,64)`;
  if (!(Number(m[3]) > 0)) return 'invalid mask: the radius r must be greater than zero';
  return null;
}

// ---------------------------------------------------------------- role moves

export interface RoleMoveInput {
  /** The caller's membership of the group, if any. */
  caller: Membership | null;
  /** The caller is an active founder or admin of the group's organisation (org groups only). */
  callerOrgManager: boolean;
  /** The target user is the caller. */
  self: boolean;
  /** The target's current membership of the group, if any. */
  target: Membership | null;
  wanted: Role;
  isOpen: boolean;
}

export type RoleMove =
  | { kind: 'invite' } // new pending membership, invitation e-mail
  | { kind: 'reinvite' } // pending or declined membership, pending again in `wanted`
  | { kind: 'activate' } // active at once (org admin claim, joining an open group)
  | { kind: 'change' } // active member moves to another role
  | { kind: 'refuse'; status: 403 | 409; message: string };

const refuse = (status: 403 | 409, message: string): RoleMove => ({ kind: 'refuse', status, message });
const activeRole = (m: Membership | null): Role | null => (m?.state === 'active' ? m.role : null);

/**
 * PUT <username> into a role folder. The rule: founders and admins manage the roster;
 * nobody grants a role above their own, nor changes someone who ranks above them. An org
 * founder or admin claims any role in a group of their org at once. Anyone may join an
 * open group as a member, and anyone may step down from their own role. The group's owner
 * (a user group's namespace user, an organisation's account) stays its founder whoever
 * asks: the membership write refuses it (members.ts), not this decision.
 */
export function decideRolePut(i: RoleMoveInput): RoleMove {
  const mine = activeRole(i.caller);
  const theirs = i.target;
  if (theirs && theirs.state !== 'declined' && theirs.role === i.wanted) {
    return refuse(
      409,
      theirs.state === 'pending' ? `already invited as ${i.wanted}` : `already holds the role ${i.wanted}`,
    );
  }
  if (i.self) {
    if (i.callerOrgManager) return { kind: 'activate' };
    if (mine) {
      if (ROLE_RANK[i.wanted] > ROLE_RANK[mine]) return refuse(403, `you cannot raise your own role above ${mine}`);
      return { kind: 'change' };
    }
    if (theirs?.state === 'pending')
      return refuse(409, 'you have a pending invite: answer it at /v1/admin/invites/<group>/accept');
    if (i.isOpen) {
      return i.wanted === 'members'
        ? { kind: 'activate' }
        : refuse(403, 'an open group is joined as members; a founder or admin can promote you');
    }
    return refuse(403, 'this group is not open: you need an invite from a founder or admin');
  }
  if (!isManager(mine)) return refuse(403, 'only founders and admins of the group invite and change roles');
  if (ROLE_RANK[i.wanted] > ROLE_RANK[mine!]) return refuse(403, `you cannot grant a role above your own (${mine})`);
  if (theirs && theirs.state !== 'declined' && ROLE_RANK[theirs.role] > ROLE_RANK[mine!]) {
    return refuse(403, `you cannot change the role of someone who ranks above you (${theirs.role})`);
  }
  if (!theirs) return { kind: 'invite' };
  return theirs.state === 'active' ? { kind: 'change' } : { kind: 'reinvite' };
}

/**
 * DELETE <username> from a role folder: leave your own role, or a manager removes someone not above them (never the
 * group's owner: the membership write refuses it, members.ts).
 */
export function decideRoleDelete(
  i: Omit<RoleMoveInput, 'isOpen' | 'callerOrgManager'>,
): { ok: true } | { ok: false; status: 403 | 404; message: string } {
  const theirs = i.target;
  if (!theirs || theirs.state === 'declined' || theirs.role !== i.wanted)
    return { ok: false, status: 404, message: `the user does not hold the role ${i.wanted}` };
  if (i.self) return { ok: true };
  const mine = activeRole(i.caller);
  if (!isManager(mine))
    return { ok: false, status: 403, message: 'only founders and admins of the group remove members' };
  if (ROLE_RANK[theirs.role] > ROLE_RANK[mine!])
    return { ok: false, status: 403, message: `you cannot remove someone who ranks above you (${theirs.role})` };
  return { ok: true };
}

// ---------------------------------------------------------------- inbound mail

/** Splits `<group>@<org>.<domain>` into its org and group; null for any other address. */
export function parseInboundAddress(address: string, domain: string): { org: string; group: string } | null {
  const at = address.trim().toLowerCase().replace(/^<|>$/g, '');
  const m = /^([^@\s]+)@([^@\s]+)$/.exec(at);
  if (!m) return null;
  const suffix = `.${domain.toLowerCase()}`;
  if (!m[2]!.endsWith(suffix)) return null;
  const org = m[2]!.slice(0, -suffix.length);
  const group = m[1]!;
  if (!GROUP_NAME.test(org) || !GROUP_NAME.test(group)) return null;
  return { org, group };
}

export const inboundAddress = (org: string, group: string, domain: string) => `${group}@${org}.${domain}`;
