/**
 * The operator interface (only with OPS_TOKEN set): users, the outbox, retention, the platform clock, bounced addresses
 * (the mail area records them).
 */
import { desc, eq, lt } from 'drizzle-orm';
import * as z from 'zod';
import { outbox, users } from '../db/schema';
import type { Api } from '../core/api';
import { setClockOffset } from '../core/clock';
import { HttpError, notFound } from '../core/errors';
import { jsonResponse, noContent } from '../core/http';
import { listingQuery } from '../core/listing';
import { BY_ID, nextLink, pageOf, pageRequest } from '../core/paging';
import { isTimeZone, username as checkUsername } from '../core/names';
import { recordBounce } from '../mail/bounce';
import { deleteAccount, deletionAnswers, pendingDeletions } from './deletion';
import { profileOf, profileSchema, upsertUser } from './users';
import { retentionStatus } from './retention';
import { retentionSettings } from './retention-plan';
import { once } from '../core/once';

const opsUser = once(() =>
  z
    .object({
      password: z.string().min(1).max(1024).optional(),
      email: z.string().email().max(254).nullable().optional(),
      email_verified: z.boolean().optional(),
      account: z.enum(['user', 'organisation']).optional(),
      plan: z.enum(['free', 'premium']).optional(),
      profile_public: z.boolean().optional(),
      timezone: z.string().max(64).refine(isTimeZone, 'timezone: an IANA name such as Europe/Paris').optional(),
    })
    .strict()
    .meta({
      id: 'AccountChange',
      description: 'What the operator sets of an account (a password is required to create one)',
      example: {
        password: 'correct horse battery staple',
        email: 'alice@example.com',
        email_verified: true,
        plan: 'premium',
        timezone: 'Europe/Amsterdam',
      },
    }),
);

const removedCounts = once(() =>
  z.object({
    outbox: z.number().int(),
    resource_log: z.number().int(),
    mail_runs: z.number().int(),
    job_runs: z.number().int(),
    webhook_deliveries: z.number().int(),
    idempotency_keys: z.number().int(),
    blobs: z.number().int(),
  }),
);

const retentionReport = once(() =>
  z
    .object({
      settings: z.object({
        enabled: z.boolean(),
        outbox_days: z.number().int(),
        runs_days: z.number().int(),
        runs_keep: z.number().int(),
        log_days: z.number().int(),
        log_keep: z.number().int(),
        webhooks_days: z.number().int(),
        batch: z.number().int(),
        tick_rows: z.number().int(),
        tick_ms: z.number().int(),
      }),
      last_sweep: z
        .object({ swept_on: z.string(), removed: removedCounts(), duration_ms: z.number().int() })
        .nullable(),
      rows: z.record(z.string(), z.number().int()),
    })
    .meta({
      id: 'Retention',
      description: 'The retention settings, the last sweep and the row count of every table they bound',
      example: {
        settings: retentionSettings({}),
        last_sweep: {
          swept_on: '2025-10-02T03:00:00.412Z',
          removed: {
            outbox: 12,
            resource_log: 340,
            mail_runs: 0,
            job_runs: 25,
            webhook_deliveries: 61,
            idempotency_keys: 7,
            blobs: 3,
          },
          duration_ms: 184,
        },
        rows: {
          outbox: 88,
          resource_log: 15230,
          mail_runs: 42,
          job_runs: 977,
          webhook_deliveries: 1204,
          idempotency_keys: 310,
        },
      },
    }),
);

const outboxEntry = once(() =>
  z
    .object({
      id: z.number().int(),
      kind: z.enum(['mail', 'test', 'invite', 'reply']),
      from: z.string(),
      to: z.array(z.string()),
      subject: z.string(),
      text: z.string(),
      html: z.string(),
      attachments: z.array(z.object({ filename: z.string(), content_type: z.string(), size: z.number().int() })),
      created_on: z.string(),
      /** The stable Message-ID, and the id the send_email transport answered (bounce reports name either). */
      message_id: z.string().nullable(),
      provider_id: z.string().nullable(),
    })
    .meta({
      id: 'OutboxMessage',
      description: 'A message the platform sent, as the outbox keeps it',
      example: {
        id: 311,
        kind: 'invite',
        from: 'Edge platform <noreply@platform.example>',
        to: ['bob@example.com'],
        subject: 'alice invites you to +acme~analysts',
        text: 'alice invites you to join +acme~analysts as members.',
        html: '<p>alice invites you to join <b>+acme~analysts</b> as members.</p>',
        attachments: [],
        created_on: '2025-10-02T09:30:11.006Z',
        message_id: '<0f3c9a52e1b84d7c@platform.example>',
        provider_id: null,
      },
    }),
);

export function opsRoutes(api: Api): void {
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

  api.delete('/v1/ops/users/:user', {
    summary: 'Delete a user and everything it owns',
    tag: 'ops',
    auth: 'ops',
    responses: { ...deletionAnswers, 404: { description: 'No such user' } },
    handler: async (ctx) => {
      const name = checkUsername(ctx.params.user!);
      const user = await ctx.db.select().from(users).where(eq(users.username, name)).get();
      if (!user) throw notFound(`no such user: ${name}`);
      return deleteAccount(ctx.env, ctx.db, user);
    },
  });

  api.get('/v1/ops/deletions', {
    summary: 'Accounts being deleted whose removal the scheduled() tick is still finishing (the name each had)',
    tag: 'ops',
    auth: 'ops',
    responses: {
      200: {
        description: 'Accounts being deleted, oldest first',
        type: 'application/json',
        schema: () =>
          z.array(
            z
              .object({ username: z.string(), started_on: z.string() })
              .meta({ example: { username: 'carol', started_on: '2025-10-02T10:15:00.000Z' } }),
          ),
      },
    },
    handler: async (ctx) => jsonResponse(await pendingDeletions(ctx.db)),
  });

  api.get('/v1/ops/outbox', {
    summary:
      'Every outbound e-mail handed to the transport, newest last: the newest 1,000 (?limit fewer), older ones through the Link header (?cursor), as a log pages',
    tag: 'ops',
    auth: 'ops',
    query: listingQuery,
    responses: { 200: { description: 'Outbox', type: 'application/json', schema: () => z.array(outboxEntry()) } },
    handler: async (ctx) => {
      const page = pageRequest(ctx.url, BY_ID);
      const rows = await ctx.db
        .select()
        .from(outbox)
        .where(page.after ? lt(outbox.id, page.after[0] as number) : undefined)
        .orderBy(desc(outbox.id))
        .limit(page.limit + 1);
      const { items, next } = pageOf(rows, page, (r) => [r.id]);
      return jsonResponse(
        items.reverse().map((r) => ({
          id: r.id,
          kind: r.kind,
          from: r.sender,
          to: r.recipients,
          subject: r.subject,
          text: r.text,
          html: r.html,
          attachments: r.attachments,
          created_on: r.created_on,
          message_id: r.message_id,
          provider_id: r.provider_id,
        })),
        { headers: nextLink(ctx.url, next) },
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

  api.get('/v1/ops/retention', {
    summary: 'Retention: the settings, the last sweep (when, rows removed per table) and the row count per table',
    tag: 'ops',
    auth: 'ops',
    responses: { 200: { description: 'Retention', type: 'application/json', schema: retentionReport } },
    handler: async (ctx) => jsonResponse(await retentionStatus(ctx.env)),
  });

  api.post('/v1/ops/clock', {
    summary: 'Move the platform clock (tests; only where ALLOW_CLOCK_OVERRIDE is "true")',
    tag: 'ops',
    auth: 'ops',
    json: () => z.object({ offset_ms: z.number().int() }).meta({ example: { offset_ms: 86_400_000 } }),
    responses: { 204: { description: 'Set' } },
    handler: async (ctx) => {
      if (ctx.env.ALLOW_CLOCK_OVERRIDE !== 'true') throw notFound('clock override is disabled');
      setClockOffset(ctx.body.offset_ms);
      return noContent();
    },
  });

  api.put('/v1/ops/mail/bounces/:address', {
    summary: 'Record a bounced address: no platform e-mail goes to it any more',
    tag: 'ops',
    auth: 'ops',
    responses: { 204: { description: 'Recorded' }, 400: { description: 'Not an address' } },
    handler: recordBounce,
  });
}
