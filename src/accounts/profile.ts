/**
 * The caller's own profile entries (client contract: `novem --info` and the profile
 * fields): `overview` (text), `name`, `bio`, `timezone` (text entries, read back byte for
 * byte) and the public profile `url`. Reads go to D1, not the auth cache, so a write is
 * seen at once by every isolate.
 */
import { and, count, eq } from 'drizzle-orm';
import { z } from 'zod';
import { members, resources, users, type User } from '../db/schema';
import type { Api } from '../core/api';
import type { Ctx } from '../core/context';
import { badRequest } from '../core/errors';
import { KiB, noContent, readText, textResponse } from '../core/http';
import { isTimeZone } from '../core/names';
import { upsertUser } from './users';

type TextField = 'name' | 'bio' | 'timezone';

interface FieldSpec {
  /** Largest body accepted, in bytes (413 above). */
  limit: number;
  /** Why a value is refused (400), or null. */
  problem: (value: string) => string | null;
  summary: string;
}

/** Display name: one line of at most 128 characters. */
export const NAME_MAX_CHARS = 128;
/** Bio: at most 4 KiB of text (any lines). */
export const BIO_LIMIT = 4 * KiB;

/** Pure checks of the profile text entries. */
export const PROFILE_FIELDS: Record<TextField, FieldSpec> = {
  name: {
    limit: 1 * KiB,
    problem: (v) => (/[\r\n]/.test(v) ? 'the name is one line' : [...v].length > NAME_MAX_CHARS ? `the name is at most ${NAME_MAX_CHARS} characters` : null),
    summary: "The caller's display name (one line, at most 128 characters)",
  },
  bio: { limit: BIO_LIMIT, problem: () => null, summary: "The caller's bio (text, at most 4 KiB)" },
  timezone: {
    limit: 64,
    // The runtime also takes offsets (`+01:00`): a zone is a name (UTC, Europe/Paris).
    problem: (v) => (/^[A-Za-z]/.test(v) && isTimeZone(v) ? null : `'${v.slice(0, 64)}' is not a time zone: use an IANA name such as Europe/Paris or UTC`),
    summary: "The caller's time zone (an IANA name; UTC unless set)",
  },
};

/** The caller as D1 has it now. */
async function fresh(ctx: Ctx): Promise<User> {
  return (await ctx.db.select().from(users).where(eq(users.id, ctx.caller!.id)).get()) ?? ctx.caller!;
}

/** The public profile url of a user. */
export const profileUrl = (env: Env, username: string) => `${env.PUBLIC_ORIGIN}/u/${username}`;

/** Pure: the overview text of an account. */
export function overviewText(u: Pick<User, 'username' | 'name' | 'email' | 'email_verified' | 'plan' | 'account' | 'timezone' | 'profile_public'>, counts: Record<'docs' | 'grids' | 'mails' | 'jobs' | 'groups', number>, url: string): string {
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

export function profileEntryRoutes(api: Api): void {
  const tag = 'accounts';

  api.get('/v1/admin/profile/overview', {
    summary: "A short overview of the caller's account (text): username, name, e-mail, plan, account kind, counts",
    tag,
    auth: 'user',
    responses: { 200: { description: 'Overview', type: 'text/plain' } },
    handler: async (ctx) => {
      const id = ctx.caller!.id;
      const [me, kinds, groupCount] = await ctx.db.batch([
        ctx.db.select().from(users).where(eq(users.id, id)),
        ctx.db.select({ kind: resources.kind, n: count() }).from(resources).where(eq(resources.owner_id, id)).groupBy(resources.kind),
        ctx.db.select({ n: count() }).from(members).where(and(eq(members.user_id, id), eq(members.state, 'active'))),
      ]);
      const u = me[0] ?? ctx.caller!;
      const n = (k: string) => kinds.find((r) => r.kind === k)?.n ?? 0;
      const counts = { docs: n('doc'), grids: n('grid'), mails: n('mail'), jobs: n('job'), groups: groupCount[0]?.n ?? 0 };
      return textResponse(overviewText(u, counts, profileUrl(ctx.env, u.username)));
    },
  });

  api.get('/v1/admin/profile/url', {
    summary: "The caller's public profile url",
    tag,
    auth: 'user',
    responses: { 200: { description: 'Url', type: 'text/plain' } },
    handler: (ctx) => textResponse(profileUrl(ctx.env, ctx.caller!.username)),
  });

  for (const field of Object.keys(PROFILE_FIELDS) as TextField[]) {
    const spec = PROFILE_FIELDS[field];
    api.get(`/v1/admin/profile/${field}`, {
      summary: spec.summary,
      tag,
      auth: 'user',
      responses: { 200: { description: 'The value, exactly as written', type: 'text/plain' } },
      handler: async (ctx) => textResponse((await fresh(ctx))[field]),
    });
    api.post(`/v1/admin/profile/${field}`, {
      summary: `Write ${spec.summary.charAt(0).toLowerCase()}${spec.summary.slice(1)}`,
      tag,
      auth: 'user',
      body: { type: 'text/plain', schema: z.string() },
      responses: { 204: { description: 'Written' }, 400: { description: 'Invalid value' }, 413: { description: 'Too large' }, 415: { description: 'Not text/plain' } },
      handler: async (ctx) => {
        const value = await readText(ctx.req, spec.limit, `${field} is limited to ${spec.limit} bytes`);
        const problem = spec.problem(value);
        if (problem) throw badRequest(`invalid ${field}: ${problem}`);
        await upsertUser(ctx.db, ctx.caller!.username, { [field]: value });
        return noContent();
      },
    });
  }
}
