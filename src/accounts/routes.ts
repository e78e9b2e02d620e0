/** Accounts and tokens, the caller's own profile, and the operator interface. */
import { asc, eq } from 'drizzle-orm';
import { z } from 'zod';
import { outbox, tokens, users } from '../db/schema';
import type { Api } from '../core/api';
import { bearerToken, forgetToken, hashToken } from '../core/auth';
import { setClockOffset } from '../core/clock';
import { HttpError, notFound } from '../core/errors';
import { jsonResponse, noContent, readYesNo, textResponse } from '../core/http';
import { isTimeZone, TOKEN_NAME, USERNAME, username as checkUsername } from '../core/names';
import { profileEntryRoutes } from './profile';
import { checkPassword, issueToken, profileOf, upsertUser } from './users';

const tokenRequest = z.object({
  username: z.string().min(1).max(64),
  password: z.string().min(1).max(1024),
  token_name: z.string().regex(TOKEN_NAME, 'token names match ^[a-z][a-z0-9._-]*$').max(128).optional(),
  token_description: z.string().max(1024).optional(),
});

const opsUser = z
  .object({
    password: z.string().min(1).max(1024).optional(),
    email: z.string().email().max(254).nullable().optional(),
    email_verified: z.boolean().optional(),
    account: z.enum(['user', 'organisation']).optional(),
    plan: z.enum(['free', 'premium']).optional(),
    profile_public: z.boolean().optional(),
    timezone: z.string().max(64).refine(isTimeZone, 'timezone: an IANA name such as Europe/Paris').optional(),
  })
  .strict();

const outboxEntry = z.object({
  id: z.number().int(),
  kind: z.enum(['mail', 'test', 'invite', 'reply']),
  from: z.string(),
  to: z.array(z.string()),
  subject: z.string(),
  text: z.string(),
  html: z.string(),
  attachments: z.array(z.object({ filename: z.string(), content_type: z.string(), size: z.number().int() })),
  created_on: z.string(),
});

const profileSchema = z.object({
  username: z.string(),
  email: z.string(),
  email_verified: z.boolean(),
  account: z.enum(['user', 'organisation']),
  plan: z.enum(['free', 'premium']),
  profile_public: z.boolean(),
});

export function accountRoutes(api: Api): void {
  const tag = 'accounts';

  api.post('/v1/token', {
    summary: 'Issue a token for a username and password',
    tag,
    auth: 'none',
    json: tokenRequest,
    responses: {
      200: { description: 'The token', type: 'application/json', schema: z.object({ token: z.string(), token_name: z.string() }) },
      401: { description: 'Wrong credentials' },
    },
    handler: async (ctx) => {
      const { username, password, token_name = 'default', token_description = '' } = ctx.body;
      const user = USERNAME.test(username) ? await checkPassword(ctx.db, username, password) : null;
      if (!user) throw new HttpError(401, 'invalid username or password');
      const token = await issueToken(ctx.db, user, token_name, token_description);
      return jsonResponse({ token, token_name });
    },
  });

  api.get('/v1/token', {
    summary: 'Describe the token the request carries',
    tag,
    auth: 'user',
    responses: {
      200: {
        description: 'Token details',
        type: 'application/json',
        schema: z.object({ token_name: z.string(), token_description: z.string(), created_on: z.string() }),
      },
    },
    handler: async (ctx) => {
      const row = await ctx.db.select().from(tokens).where(eq(tokens.token_hash, await hashToken(bearerToken(ctx.req)!))).get();
      if (!row) throw notFound('token not found');
      return jsonResponse({ token_name: row.name, token_description: row.description, created_on: row.created_on });
    },
  });

  api.post('/v1/logout', {
    summary: 'Revoke the token the request carries',
    tag,
    auth: 'user',
    responses: { 204: { description: 'Revoked' } },
    handler: async (ctx) => {
      const hash = await hashToken(bearerToken(ctx.req)!);
      await ctx.db.delete(tokens).where(eq(tokens.token_hash, hash));
      forgetToken(hash);
      return noContent();
    },
  });

  api.get('/v1/whoami', {
    summary: "The caller's username",
    tag,
    auth: 'user',
    responses: { 200: { description: 'Username', type: 'text/plain' } },
    handler: (ctx) => textResponse(ctx.caller!.username),
  });

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
    body: { type: 'text/plain', schema: z.enum(['yes', 'no']) },
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
    responses: { 200: { description: 'yes or no', type: 'text/plain' } },
    handler: (ctx) => textResponse(ctx.caller!.profile_public ? 'yes' : 'no'),
  });

  profileEntryRoutes(api);

  // Operator interface (only with OPS_TOKEN set)
  api.put('/v1/ops/users/:user', {
    summary: 'Create (201) or update (200) a user',
    tag: 'ops',
    auth: 'ops',
    json: opsUser,
    responses: {
      200: { description: 'Updated: the account', type: 'application/json', schema: profileSchema },
      201: { description: 'Created: the account', type: 'application/json', schema: profileSchema },
    },
    handler: async (ctx) => {
      const name = checkUsername(ctx.params.user!);
      const exists = await ctx.db.select({ id: users.id }).from(users).where(eq(users.username, name)).get();
      if (!exists && !ctx.body.password) throw new HttpError(400, 'password is required to create a user');
      const { created, user } = await upsertUser(ctx.db, name, ctx.body);
      return jsonResponse(profileOf(user), { status: created ? 201 : 200 });
    },
  });

  api.get('/v1/ops/outbox', {
    summary: 'Every outbound e-mail handed to the transport, newest last',
    tag: 'ops',
    auth: 'ops',
    responses: { 200: { description: 'Outbox', type: 'application/json', schema: z.array(outboxEntry) } },
    handler: async (ctx) => {
      const rows = await ctx.db.select().from(outbox).orderBy(asc(outbox.id));
      return jsonResponse(
        rows.map((r) => ({
          id: r.id,
          kind: r.kind,
          from: r.sender,
          to: r.recipients,
          subject: r.subject,
          text: r.text,
          html: r.html,
          attachments: r.attachments,
          created_on: r.created_on,
        })),
      );
    },
  });

  api.delete('/v1/ops/outbox', {
    summary: 'Empty the outbox',
    tag: 'ops',
    auth: 'ops',
    responses: { 204: { description: 'Emptied' } },
    handler: async (ctx) => {
      await ctx.db.delete(outbox);
      return noContent();
    },
  });

  api.post('/v1/ops/clock', {
    summary: 'Move the platform clock (tests; only where ALLOW_CLOCK_OVERRIDE is "true")',
    tag: 'ops',
    auth: 'ops',
    json: z.object({ offset_ms: z.number().int() }),
    responses: { 204: { description: 'Set' } },
    handler: async (ctx) => {
      if (ctx.env.ALLOW_CLOCK_OVERRIDE !== 'true') throw notFound('clock override is disabled');
      setClockOffset(ctx.body.offset_ms);
      return noContent();
    },
  });
}
