/**
 * The caller's own account and profile under /v1/admin/profile: the account, whether the
 * profile is public, and the profile entries (overview, url, name, bio, timezone).
 */
import { and, count, eq } from 'drizzle-orm';
import { members, resources, users } from '../db/schema';
import type { Api } from '../core/api';
import { freshCaller } from '../core/auth';
import { badRequest } from '../core/errors';
import { text, yesNoText } from '../core/examples';
import { jsonResponse, noContent, readText, readYesNo, textResponse } from '../core/http';
import { overviewText, PROFILE_FIELDS, profileUrl, type TextField } from './profile';
import { profileOf, profileSchema, upsertUser } from './users';
import { once } from '../core/once';

/** The overview of an example account: the document's example of GET /v1/admin/profile/overview. */
const overviewExample = once(() =>
  overviewText(
    {
      username: 'alice',
      name: 'Alice Martin',
      email: 'alice@example.com',
      email_verified: true,
      plan: 'free',
      account: 'user',
      timezone: 'Europe/Amsterdam',
      profile_public: true,
    },
    { docs: 12, grids: 3, mails: 2, jobs: 4, groups: 2 },
    'https://platform.example/u/alice',
  ),
);

export function profileRoutes(api: Api): void {
  const tag = 'accounts';

  api.get('/v1/admin/profile', {
    summary: "The caller's account",
    tag,
    auth: 'user',
    responses: { 200: { description: 'Account', type: 'application/json', schema: profileSchema } },
    handler: (ctx) => jsonResponse(profileOf(ctx.caller!), { nvmType: 'file' }),
  });

  api.post('/v1/admin/profile/public', {
    summary: "Make the caller's profile public (yes) or private (no)",
    tag,
    auth: 'user',
    body: { type: 'text/plain', schema: yesNoText },
    responses: { 204: { description: 'Set' } },
    handler: async (ctx) => {
      const pub = await readYesNo(ctx.req);
      await upsertUser(ctx.db, ctx.caller!.username, { profile_public: pub });
      return noContent();
    },
  });

  api.get('/v1/admin/profile/public', {
    summary: "Whether the caller's profile is public",
    tag,
    auth: 'user',
    responses: { 200: { description: 'yes or no', type: 'text/plain', schema: yesNoText } },
    handler: (ctx) => textResponse(ctx.caller!.profile_public ? 'yes' : 'no'),
  });

  // The profile entries (profile.ts). Reads go to D1, not the auth cache, so a write is
  // seen at once by every isolate.

  api.get('/v1/admin/profile/overview', {
    summary: "A short overview of the caller's account (text): username, name, e-mail, plan, account kind, counts",
    tag,
    auth: 'user',
    responses: { 200: { description: 'Overview', type: 'text/plain', schema: () => text(overviewExample()) } },
    handler: async (ctx) => {
      const id = ctx.caller!.id;
      const [me, kinds, groupCount] = await ctx.db.batch([
        ctx.db.select().from(users).where(eq(users.id, id)),
        ctx.db
          .select({ kind: resources.kind, n: count() })
          .from(resources)
          .where(eq(resources.owner_id, id))
          .groupBy(resources.kind),
        ctx.db
          .select({ n: count() })
          .from(members)
          .where(and(eq(members.user_id, id), eq(members.state, 'active'))),
      ]);
      const u = me[0] ?? ctx.caller!;
      const n = (k: string) => kinds.find((r) => r.kind === k)?.n ?? 0;
      const counts = {
        docs: n('doc'),
        grids: n('grid'),
        mails: n('mail'),
        jobs: n('job'),
        groups: groupCount[0]?.n ?? 0,
      };
      return textResponse(overviewText(u, counts, profileUrl(ctx.env, u.username)));
    },
  });

  api.get('/v1/admin/profile/url', {
    summary: "The caller's public profile url",
    tag,
    auth: 'user',
    responses: {
      200: { description: 'Url', type: 'text/plain', schema: () => text('https://platform.example/u/alice') },
    },
    handler: (ctx) => textResponse(profileUrl(ctx.env, ctx.caller!.username)),
  });

  for (const field of Object.keys(PROFILE_FIELDS) as TextField[]) {
    const spec = PROFILE_FIELDS[field];
    api.get(`/v1/admin/profile/${field}`, {
      summary: spec.summary,
      tag,
      auth: 'user',
      responses: {
        200: { description: 'The value, exactly as written', type: 'text/plain', schema: () => text(spec.example) },
      },
      handler: async (ctx) => textResponse((await freshCaller(ctx))[field]),
    });
    api.post(`/v1/admin/profile/${field}`, {
      summary: `Write ${spec.summary.charAt(0).toLowerCase()}${spec.summary.slice(1)}`,
      tag,
      auth: 'user',
      body: { type: 'text/plain', schema: () => text(spec.example) },
      responses: {
        204: { description: 'Written' },
        400: { description: 'Invalid value' },
        413: { description: 'Too large' },
        415: { description: 'Not text/plain' },
      },
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
