/** The job resource kind: its text entries and what a copy carries over. */
import { eq } from 'drizzle-orm';
import { canonicalEntries, typeWordProblem } from '../core/canonical';
import { dbFor } from '../core/context';
import { entriesQuery, entryValues } from '../core/entries';
import { forbidden } from '../core/errors';
import type { EntrySpec, ResourceCtx, ResourceKind } from '../core/resource';
import { KiB } from '../core/http';
import { writerProblem } from './chain-access';
import { chainProblem, parseChains } from './chains';
import { yesNo } from '../core/yes-no';
import { booleanProblem } from './config';
import { scheduleProblem } from './cron';
import { codePrefix, writtenBy } from './code-files';
import { scheduleStatement } from './schedule';
import { forgetFinishedRuns } from './run/forget';
import { jobMeta } from './schema';

/** Finished runs whose storage a job's DELETE forgets at once (each a Durable Object call, within a request's limits). */
const FORGET_ON_DELETE = 200;

/**
 * Scheduled runs act for the owner alone (no one else triggers them), so only the owner
 * sets when they happen: a grantee's schedule would run the owner's chain with the owner's
 * rights, beyond the grantee's own.
 */
function ownerSchedules(rc: ResourceCtx): void {
  if (!rc.access.owner)
    throw forbidden(
      "config/schedule and config/enabled: scheduled runs act with the owner's rights alone, so only the owner sets them",
    );
}

/** The values of config/schedule and config/enabled among a job's entry rows. */
const scheduleConfig = (env: Env, rows: Parameters<typeof entryValues>[1]) =>
  entryValues(
    env,
    rows.filter((r) => r.path === 'config/schedule' || r.path === 'config/enabled'),
  );

/**
 * config/schedule and config/enabled bring the job's schedule index row along in the write's
 * own batch: the other of the two is read with the job (writePreload).
 */
const scheduled = (
  path: 'config/schedule' | 'config/enabled',
): Pick<EntrySpec, 'writePreload' | 'writeStatements'> => ({
  writePreload: { rows: (ctx, id) => entriesQuery(ctx.db, id, 'config/') },
  writeStatements: async (rc, value) => {
    const stored = await scheduleConfig(rc.env, (rc.preloaded?.rows ?? []) as Parameters<typeof entryValues>[1]);
    if (value === null) stored.delete(path);
    else stored.set(path, value);
    return {
      statements: [
        scheduleStatement(
          rc.db,
          rc.resource.id,
          stored.get('config/schedule') ?? '',
          yesNo(stored.get('config/enabled'), true),
        ),
      ],
    };
  },
});

export const jobKind: ResourceKind = {
  kind: 'job',
  collection: 'code/jobs',
  param: 'job',
  noun: 'job',
  // No page of its own: the url is the job's folder under its owner (readers with a token).
  url: (env, owner, name) => `${env.PUBLIC_ORIGIN}/u/${owner}/j/${name}`,
  entries: [
    { path: 'name', access: 'rw', limit: 256, example: 'Nightly export' },
    {
      path: 'description',
      access: 'rw',
      limit: 16 * KiB,
      example: 'Exports the day’s orders to CSV and mails the summary to the sales team.',
    },
    {
      path: 'summary',
      access: 'rw',
      limit: 4 * KiB,
      summary: 'Short text summary',
      example: 'Daily orders export',
    },
    ...canonicalEntries(() => jobKind),
    {
      path: 'config/type',
      access: 'rw',
      default: 'job',
      limit: 64,
      validate: typeWordProblem,
      summary: 'Type: a lowercase word (stored for the clients; runs do not change with it)',
    },
    {
      path: 'config/chains',
      access: 'rw',
      limit: 16 * KiB,
      // A grantee's chain may name only jobs the grantee may execute (the owner's is checked when it runs).
      validate: (v, rc) =>
        chainProblem(v) ??
        (rc.access.owner ? undefined : writerProblem(rc.db, rc.resource.owner_id, parseChains(v), rc.caller!)),
      summary: 'The chain: bindings label <- ref and edges a -> b -> .c',
      example: 'fetch <- fetch_orders\nreport <- @alice/orders_report\nfetch -> report\n',
    },
    {
      path: 'config/schedule',
      access: 'rw',
      limit: 512,
      validate: (v, rc) => (ownerSchedules(rc), scheduleProblem(v)),
      ...scheduled('config/schedule'),
      summary: 'Cron expression (five fields), optional TZ=<zone> prefix and # comment',
      example: 'TZ=Europe/Amsterdam 30 6 * * 1-5 # weekdays at 06:30',
    },
    {
      path: 'config/enabled',
      access: 'rw',
      default: 'true',
      limit: 16,
      validate: (v, rc) => (ownerSchedules(rc), booleanProblem(v)),
      ...scheduled('config/enabled'),
      summary: 'true or false: scheduled runs happen only when enabled',
    },
    {
      path: 'config/network',
      access: 'rw',
      default: 'false',
      limit: 16,
      validate: (v) => booleanProblem(v),
      summary: 'true lets the job code reach the network',
    },
  ],
  folders: ['code', 'runs', 'stats', 'config/env'],
  files: [
    { name: 'data', access: 'w' },
    { name: 'log', access: 'r' },
  ],
  // Env values are secrets of the owner: a copy (possibly by a read grantee) never carries them.
  copyExcludes: (path) => path.startsWith('config/env/'),
  // The job's meta row read with the job; the copy's meta and schedule index rows join the copy's batch.
  copyRead: (ctx, id) => ctx.db.select().from(jobMeta).where(eq(jobMeta.job_id, id)),
  copyWrites: async (from, to, rows) => {
    const meta = (rows as (typeof jobMeta.$inferSelect)[])[0];
    const config = await scheduleConfig(from.env, from.preloaded?.listing ?? []);
    return [
      ...(meta
        ? [from.db.insert(jobMeta).values({ job_id: to.id, code_version: meta.code_version, failures: 0 })]
        : []),
      scheduleStatement(from.db, to.id, config.get('config/schedule') ?? '', yesNo(config.get('config/enabled'), true)),
    ];
  },
  // A deleted job's finished runs leave no log or output behind in their Durable Objects (a run still going ends first;
  // an account's deletion forgets every run in steps before it comes here: accounts/deletion.ts).
  deleting: async (env, resource) => {
    await forgetFinishedRuns(env, dbFor(env), resource.id, FORGET_ON_DELETE);
  },
  copied: async (from, to) => {
    const listed = await from.env.BLOBS.list({ prefix: codePrefix(from.resource.id) });
    await Promise.all(
      listed.objects.map(async (o) => {
        const obj = await from.env.BLOBS.get(o.key);
        // Each file keeps its writer (the original's owner when unrecorded): the copy's owner approves it before it
        // runs with their env values and network.
        if (obj)
          await from.env.BLOBS.put(
            codePrefix(to.id) + o.key.slice(codePrefix(from.resource.id).length),
            await obj.arrayBuffer(),
            {
              httpMetadata: obj.httpMetadata ?? {},
              customMetadata: { ...writtenBy(from.resource.owner_id), ...obj.customMetadata },
            },
          );
      }),
    );
  },
};
