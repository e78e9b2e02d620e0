/**
 * The caller's own profile entries (client contract: `novem --info` and the profile
 * fields): the rules of the text entries `name`, `bio`, `timezone`, the `overview` text
 * and the public profile `url`. Their routes: profile-routes.ts.
 */
import type { User } from '../db/schema';
import { KiB } from '../core/http';
import { isTimeZone } from '../core/names';

export type TextField = 'name' | 'bio' | 'timezone';

interface FieldSpec {
  /** Largest body accepted, in bytes (413 above). */
  limit: number;
  /** Why a value is refused (400), or null. */
  problem: (value: string) => string | null;
  summary: string;
  /** What a value reads like (the OpenAPI document's example). */
  example: string;
}

/** Display name: one line of at most 128 characters. */
const NAME_MAX_CHARS = 128;
/** Bio: at most 4 KiB of text (any lines). */
const BIO_LIMIT = 4 * KiB;

/** Pure checks of the profile text entries. */
export const PROFILE_FIELDS: Record<TextField, FieldSpec> = {
  name: {
    limit: 1 * KiB,
    problem: (v) =>
      /[\r\n]/.test(v)
        ? 'the name is one line'
        : [...v].length > NAME_MAX_CHARS
          ? `the name is at most ${NAME_MAX_CHARS} characters`
          : null,
    summary: "The caller's display name (one line, at most 128 characters)",
    example: 'Alice Martin',
  },
  bio: {
    limit: BIO_LIMIT,
    problem: () => null,
    summary: "The caller's bio (text, at most 4 KiB)",
    example: 'Data journalist in Utrecht. Charts about housing and transport.',
  },
  timezone: {
    limit: 64,
    // The runtime also takes offsets (`+01:00`): a zone is a name (UTC, Europe/Paris).
    problem: (v) =>
      /^[A-Za-z]/.test(v) && isTimeZone(v)
        ? null
        : `'${v.slice(0, 64)}' is not a time zone: use an IANA name such as Europe/Paris or UTC`,
    summary: "The caller's time zone (an IANA name; UTC unless set)",
    example: 'Europe/Amsterdam',
  },
};

/** The public profile url of a user. */
export const profileUrl = (env: Env, username: string) => `${env.PUBLIC_ORIGIN}/u/${username}`;

/** Pure: the overview text of an account. */
export function overviewText(
  u: Pick<User, 'username' | 'name' | 'email' | 'email_verified' | 'plan' | 'account' | 'timezone' | 'profile_public'>,
  counts: Record<'docs' | 'grids' | 'mails' | 'jobs' | 'groups', number>,
  url: string,
): string {
  const lines: [string, string][] = [
    ['Username', u.username],
    ['Name', u.name || '(not set)'],
    ['E-mail', u.email ? `${u.email} (${u.email_verified ? 'verified' : 'not verified'})` : '(none)'],
    ['Plan', u.plan],
    ['Account', u.account],
    ['Time zone', u.timezone],
    ['Profile', `${u.profile_public ? 'public' : 'private'}, ${url}`],
    ['Documents', String(counts.docs)],
    ['Grids', String(counts.grids)],
    ['E-mails', String(counts.mails)],
    ['Jobs', String(counts.jobs)],
    ['Groups', String(counts.groups)],
  ];
  const width = Math.max(...lines.map(([k]) => k.length)) + 1;
  return lines.map(([k, v]) => `${`${k}:`.padEnd(width)} ${v}`).join('\n') + '\n';
}
