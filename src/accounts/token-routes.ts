/** Tokens: issue one for a username and password, describe and revoke the one sent; whoami. */
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import { tokens } from '../db/schema';
import type { Api } from '../core/api';
import { bearerToken, forgetToken, hashToken } from '../core/auth';
import { HttpError, notFound } from '../core/errors';
import { jsonResponse, noContent, textResponse } from '../core/http';
import { TOKEN_NAME, USERNAME } from '../core/names';
import { checkPassword, issueToken } from './users';

const tokenRequest = z.object({
  username: z.string().min(1).max(64),
  password: z.string().min(1).max(1024),
  token_name: z.string().regex(TOKEN_NAME, 'token names match ^[a-z][a-z0-9._-]*$').max(128).optional(),
  token_description: z.string().max(1024).optional(),
});

export function tokenRoutes(api: Api): void {
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
      const row = await ctx.db
        .select()
        .from(tokens)
        .where(eq(tokens.token_hash, await hashToken(bearerToken(ctx.req)!)))
        .get();
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
}
