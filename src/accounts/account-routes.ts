/** The caller's own account: DELETE /v1/admin/account removes it and everything it owns (accounts/deletion.ts). */
import * as z from 'zod';
import type { Api } from '../core/api';
import { freshCaller } from '../core/auth';
import { forbidden } from '../core/errors';
import { deleteAccount, deletionAnswers } from './deletion';
import { passwordMatches } from './users';

export function accountRoutes(api: Api): void {
  api.delete('/v1/admin/account', {
    summary: "Delete the caller's account and everything it owns (the password confirms)",
    tag: 'accounts',
    auth: 'user',
    json: () =>
      z
        .object({ password: z.string().min(1).max(1024) })
        .strict()
        .meta({ example: { password: 'correct horse battery staple' } }),
    responses: { ...deletionAnswers, 403: { description: 'Wrong password' } },
    handler: async (ctx) => {
      const me = await freshCaller(ctx);
      if (!(await passwordMatches(me, ctx.body.password))) throw forbidden('wrong password');
      return deleteAccount(ctx.env, ctx.db, me);
    },
  });
}
