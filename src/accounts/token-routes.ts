/**
 * Tokens: issue one for a username and password (with an expiry and a scope), describe and
 * revoke the one sent, list the caller's tokens and revoke one by name; whoami.
 */
import { and, eq } from 'drizzle-orm';
import * as z from 'zod';
import { tokens, users } from '../db/schema';
import type { Api } from '../core/api';
import { bearerToken, forgetToken, hashToken } from '../core/auth';
import { now } from '../core/clock';
import { listTokens, TOKEN_SCOPES, TOKENS_KEY } from '../core/tokens';
import { conflict, HttpError, notFound } from '../core/errors';
import { text } from '../core/examples';
import { jsonResponse, noContent, textResponse } from '../core/http';
import { listingQuery } from '../core/listing';
import { nextLink, pageRequest } from '../core/paging';
import { TOKEN_NAME, USERNAME } from '../core/names';
import {
  clearFailures,
  failuresQuery,
  lockedForSeconds,
  recordFailure,
  SIGNIN_MAX_FAILURES,
  SIGNIN_WINDOW_MS,
} from './signin-throttle';
import { issueToken, MAX_TOKENS_PER_ACCOUNT, passwordMatches } from './users';
import { once } from '../core/once';

const tokenRequest = once(() =>
  z
    .object({
      username: z.string().min(1).max(64),
      password: z.string().min(1).max(1024),
      token_name: z.string().regex(TOKEN_NAME, 'token names match ^[a-z][a-z0-9._-]*$').max(128).optional(),
      token_description: z.string().max(1024).optional(),
      expires_in_days: z.number().int().min(1).max(3650).optional(),
      scope: z.enum(TOKEN_SCOPES).optional(),
    })
    .meta({
      id: 'TokenRequest',
      description: 'A sign-in: the credentials, and what the token is called, for how long and with which scope',
      example: {
        username: 'alice',
        password: 'correct horse battery staple',
        token_name: 'laptop',
        token_description: 'CLI on the work laptop',
        expires_in_days: 90,
        scope: 'full',
      },
    }),
);

const listedToken = once(() =>
  z
    .object({
      token_name: z.string(),
      token_description: z.string(),
      created_on: z.string(),
      last_used_on: z.string().nullable(),
      expires_on: z.string().nullable(),
      scope: z.enum(TOKEN_SCOPES),
      expired: z.boolean(),
    })
    .meta({
      id: 'TokenInfo',
      description: 'A token of the caller as listed: never its secret',
      example: {
        token_name: 'laptop',
        token_description: 'CLI on the work laptop',
        created_on: '2025-09-30T08:12:44.120Z',
        last_used_on: '2025-10-02T00:00:00.000Z',
        expires_on: '2025-12-29T08:12:44.120Z',
        scope: 'full',
        expired: false,
      },
    }),
);

/** What POST /v1/token answers: the token itself, shown this once. */
const issuedToken = once(() =>
  z
    .object({
      token: z.string(),
      token_name: z.string(),
      scope: z.enum(TOKEN_SCOPES),
      expires_on: z.string().nullable(),
    })
    .meta({
      id: 'Token',
      description: 'A token just issued: send it as `Authorization: Bearer <token>`; it is never shown again',
      example: {
        token: 'Yq3hV0xk2mR8tLw5bN1cZ7pD4sF9gJ6aE0uH3iK2oQ8',
        token_name: 'laptop',
        scope: 'full',
        expires_on: '2025-12-29T08:12:44.120Z',
      },
    }),
);

export function tokenRoutes(api: Api): void {
  const tag = 'accounts';

  api.post('/v1/token', {
    summary: 'Issue a token for a username and password',
    tag,
    auth: 'none',
    json: tokenRequest,
    responses: {
      200: {
        description: 'The token',
        type: 'application/json',
        schema: issuedToken,
      },
      400: { description: 'Malformed request (expires_in_days: 1-3650; scope: full or read)' },
      401: { description: 'Wrong credentials' },
      409: { description: `The account already holds ${MAX_TOKENS_PER_ACCOUNT} tokens (POST /v1/logout revokes one)` },
      429: {
        description: `${SIGNIN_MAX_FAILURES} failed sign-ins for this username within ${SIGNIN_WINDOW_MS / 60_000} minutes (Retry-After)`,
      },
    },
    // Keys are the account's the body names (no caller here): a retry with the same body gets the same token.
    idempotent: {
      account: async (ctx) =>
        (await ctx.db.select({ id: users.id }).from(users).where(eq(users.username, ctx.body.username)).get())?.id ??
        null,
    },
    handler: async (ctx) => {
      const {
        username,
        password,
        token_name = 'default',
        token_description = '',
        expires_in_days,
        scope = 'full',
      } = ctx.body;
      // A name that cannot exist is refused without a count (nothing stored for it).
      if (!USERNAME.test(username)) throw new HttpError(401, 'invalid username or password');
      // The account and the username's failed sign-ins: one round trip, before any PBKDF2.
      const [found, failures] = await ctx.db.batch([
        ctx.db.select().from(users).where(eq(users.username, username)),
        failuresQuery(ctx.db, username),
      ]);
      const wait = lockedForSeconds(failures[0], now());
      if (wait) {
        throw new HttpError(
          429,
          `too many failed sign-ins for ${username}: at most ${SIGNIN_MAX_FAILURES} in ${SIGNIN_WINDOW_MS / 60_000} minutes; try again in ${wait} s`,
          { retry_after_seconds: wait },
          { 'Retry-After': String(wait) },
        );
      }
      const user = await passwordMatches(found[0], password);
      if (!user) {
        await recordFailure(ctx.db, username, now());
        throw new HttpError(401, 'invalid username or password');
      }
      const issued = await issueToken(
        ctx.db,
        ctx.env,
        user,
        { name: token_name, description: token_description, expiresInDays: expires_in_days, scope },
        [clearFailures(ctx.db, username)],
      );
      if (!issued) {
        throw conflict(
          `an account holds at most ${MAX_TOKENS_PER_ACCOUNT} tokens: revoke one you no longer use with POST /v1/logout (sent with that token), then sign in again`,
        );
      }
      return jsonResponse({ token: issued.token, token_name, scope, expires_on: issued.expires_on });
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
        schema: () =>
          listedToken()
            .pick({ token_name: true, token_description: true, created_on: true })
            .meta({
              example: {
                token_name: 'laptop',
                token_description: 'CLI on the work laptop',
                created_on: '2025-09-30T08:12:44.120Z',
              },
            }),
      },
    },
    handler: async (ctx) => {
      const row = await ctx.db
        .select()
        .from(tokens)
        .where(eq(tokens.token_hash, await hashToken(bearerToken(ctx.req)!)))
        .get();
      if (!row) throw notFound('token not found');
      // Exactly these three fields, as the clients expect (GET /v1/tokens lists the rest).
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

  api.get('/v1/tokens', {
    summary: "The caller's tokens (never their secrets), oldest first (?limit, ?cursor: the Link header)",
    tag,
    auth: 'user',
    query: listingQuery,
    responses: {
      200: {
        description: 'Each token: name, description, when created, last used (to the day), expires; its scope',
        type: 'application/json',
        schema: () => z.array(listedToken()),
      },
    },
    handler: async (ctx) => {
      const page = pageRequest(ctx.url, TOKENS_KEY);
      const { items, next } = await listTokens(ctx.db, ctx.env, ctx.caller!.id, now(), page);
      return jsonResponse(items, { headers: nextLink(ctx.url, next) });
    },
  });

  api.delete('/v1/tokens/:token_name', {
    summary: "Revoke the caller's token of this name (every one, when several share it)",
    tag,
    auth: 'user',
    responses: {
      204: { description: 'Revoked' },
      404: { description: 'The caller has no token of this name' },
    },
    handler: async (ctx) => {
      const name = ctx.params.token_name!;
      const gone = await ctx.db
        .delete(tokens)
        .where(and(eq(tokens.user_id, ctx.caller!.id), eq(tokens.name, name)))
        .returning({ hash: tokens.token_hash });
      if (!gone.length) throw notFound(`no token named '${name}'`);
      for (const t of gone) forgetToken(t.hash);
      return noContent();
    },
  });

  api.get('/v1/whoami', {
    summary: "The caller's username",
    tag,
    auth: 'user',
    responses: { 200: { description: 'Username', type: 'text/plain', schema: () => text('alice') } },
    handler: (ctx) => textResponse(ctx.caller!.username),
  });
}
