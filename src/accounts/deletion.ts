/**
 * Deleting an account: first marked (one batch: the account is renamed out of reach, its password, tokens and the
 * shares it granted go, the user groups of its namespace lose their name and members, and an account_deletions row is
 * written), then what it owns is removed in small steps. A kill between two steps loses nothing: every step is
 * idempotent, and the scheduled() tick (resumeDeletions) continues any account still marked. An organisation account
 * that still owns its organisation is refused first (409 naming it); groups it founded with others never refuse it.
 */
import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { AnySQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import * as z from 'zod';
import { forgetUser } from '../core/auth';
import { nowIso } from '../core/clock';
import type { Db } from '../core/context';
import { deleteBlobs } from '../core/entries';
import { conflict } from '../core/errors';
import { jsonResponse, noContent } from '../core/http';
import type { ResourceKind } from '../core/resource';
import { threadComments, threads } from '../core/thread';
import { DELETED_AUTHOR } from '../core/thread/rules';
import {
  groups,
  idempotencyKeys,
  members,
  outbox,
  resources,
  shares,
  tags,
  tokens,
  users,
  type ResourceKindName,
  type User,
} from '../db/schema';
import { docKind } from '../docs/kind';
import { docNotifications } from '../docs/schema';
import { gridKind } from '../grids/kind';
import { deleteGroup } from '../groups/members';
import { forgetRuns } from '../jobs/run/forget';
import { jobKind } from '../jobs/kind';
import { jobRuns } from '../jobs/schema';
import { mailKind } from '../mail/kind';
import { plotKind } from '../plots/kind';
import { mailSuppressions } from '../mail/schema';
import { webhookDeliveries, webhookEvents, webhooks } from '../webhooks/schema';
import { accountDeletions, signinFailures } from './schema';

const KINDS: Record<ResourceKindName, ResourceKind> = {
  doc: docKind,
  grid: gridKind,
  mail: mailKind,
  job: jobKind,
  plot: plotKind,
};

/** Rows one step removes or rewrites at most (each step is one short write: the single writer is never held long). */
const STEP_ROWS = 200;
/** Runs of a job whose Durable Object storage one step forgets (each a call). */
const STEP_RUNS = 50;
/**
 * Steps a DELETE request runs itself before leaving the rest to the scheduled() tick (answering 202), and steps one
 * tick runs over all accounts being deleted: ACCOUNT_DELETION_STEPS (a whole number ≥ 1), else 100.
 */
function deletionSteps(env: Env): number {
  // Not in Env while wrangler.toml leaves it commented out.
  const v = (env as unknown as Partial<Record<string, unknown>>).ACCOUNT_DELETION_STEPS;
  const n = typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v.trim()) : NaN;
  return Number.isSafeInteger(n) && n >= 1 ? n : 100;
}

/** The name a marked account is renamed to: not a valid username, so no one signs in as it or takes it. */
const deletedName = (id: number) => `deleted:${id}`;

/**
 * The organisations the account owns (an organisation account's one), by reference: the one thing that refuses its
 * deletion. It holds each as an active founder (members.ts keeps an owner there), so it can always delete it first.
 * Nothing else it founded refuses it: the user groups of its namespace go with it, and in any other group its role
 * just goes (a user group keeps its owner as a founder; an organisation group left without one is administered by the
 * organisation's founders and admins, who claim any role in it).
 */
async function ownedOrganisations(db: Db, userId: number): Promise<string[]> {
  const rows = await db
    .select({ ref: groups.ref })
    .from(groups)
    .where(and(eq(groups.kind, 'org'), eq(groups.owner_id, userId)))
    .orderBy(asc(groups.ref));
  return rows.map((r) => r.ref);
}

/** The user groups of the account's namespace (`@<user>~<group>`), which go with it. */
const ownUserGroups = (userId: number) => and(eq(groups.kind, 'user_group'), eq(groups.owner_id, userId));

/**
 * Marks the account deleted: 409 when it owns an organisation. From the mark on it signs in nowhere, its tokens are
 * gone, its name answers 404 everywhere and can be taken again, and so can the names of its user groups: each is
 * renamed out of reach (its reference becomes `deleted:<id>`, not a valid one) and loses its members, so it grants
 * nothing and lists nowhere until its step removes it.
 */
export async function markDeleted(db: Db, user: User): Promise<void> {
  const owned = await ownedOrganisations(db, user.id);
  if (owned.length)
    throw conflict(`the account owns ${owned.join(', ')}: delete it before deleting the account`, { groups: owned });
  const own = sql`(select ${resources.id} from ${resources} where ${resources.owner_id} = ${user.id})`;
  const now = nowIso();
  await db.batch([
    db
      .insert(accountDeletions)
      .values({ user_id: user.id, username: user.username, started_on: now })
      .onConflictDoNothing(),
    db
      .update(users)
      .set({
        username: deletedName(user.id),
        password_hash: '',
        email: null,
        email_verified: false,
        profile_public: false,
        name: '',
        bio: '',
      })
      .where(eq(users.id, user.id)),
    db.delete(tokens).where(eq(tokens.user_id, user.id)),
    // Its resources stop being readable by anyone at once (public and group shares are rows here).
    db.delete(shares).where(sql`${shares.resource_id} in ${own}`),
    db.delete(signinFailures).where(eq(signinFailures.username, user.username)),
    // Its user groups: out of everyone's reach at once, their names free; their step removes the rest.
    db
      .delete(members)
      .where(inArray(members.group_id, db.select({ id: groups.id }).from(groups).where(ownUserGroups(user.id)))),
    db
      .update(groups)
      .set({ ref: sql`'deleted:' || ${groups.id}`, last_modified: now })
      .where(and(ownUserGroups(user.id), sql`${groups.ref} not like 'deleted:%'`)),
  ]);
  forgetUser(user.id);
}

/** One step of the removal: does a bounded piece of work and answers true, or false when nothing was left for it. */
type Step = (env: Env, db: Db, userId: number) => Promise<boolean>;

/** Deletes rows of a table matching `where`, at most STEP_ROWS of them; true when some were. */
async function deleteSome(db: Db, table: SQLiteTable, where: SQL): Promise<boolean> {
  const res = await db.run(
    sql`delete from ${table} where rowid in (select rowid from ${table} where ${where} limit ${STEP_ROWS})`,
  );
  return (res.meta.changes ?? 0) > 0;
}

/** Clears a column that names the account (`column = userId` → null), up to STEP_ROWS rows; true when it did some. */
async function unlinkSome(db: Db, table: SQLiteTable, column: AnySQLiteColumn, userId: number): Promise<boolean> {
  const res = await db.run(
    sql`update ${table} set ${sql.identifier(column.name)} = null where rowid in (select rowid from ${table} where ${column} = ${userId} limit ${STEP_ROWS})`,
  );
  return (res.meta.changes ?? 0) > 0;
}

/**
 * Rewrites a column that records the account's name (who triggered a run of someone else's job) to "deleted user", up to STEP_ROWS rows; true when it did some. Only rows from before the deletion started: the name
 * is free from the mark on, and a new account of that name keeps its own.
 */
async function renameSome(
  db: Db,
  table: SQLiteTable,
  column: AnySQLiteColumn,
  startedOn: AnySQLiteColumn,
  userId: number,
): Promise<boolean> {
  const marked = (col: AnySQLiteColumn) =>
    sql`(select ${sql.identifier(col.name)} from ${accountDeletions} where ${accountDeletions.user_id} = ${userId})`;
  const res = await db.run(
    sql`update ${table} set ${sql.identifier(column.name)} = ${DELETED_AUTHOR} where rowid in (select rowid from ${table} where ${column} = ${marked(accountDeletions.username)} and ${startedOn} <= ${marked(accountDeletions.started_on)} limit ${STEP_ROWS})`,
  );
  return (res.meta.changes ?? 0) > 0;
}

const STEPS: Step[] = [
  // Its resources, one per step, as their DELETE route removes one: the kind's hook (Durable Object storage), the
  // blobs, then the row (entries, shares, tags, log, threads on it, runs, assets cascade). A job's runs are forgotten
  // first, STEP_RUNS per step. Blobs before the row: a cut-off step leaves the row to find them again.
  async (env, db, userId) => {
    const r = await db
      .select()
      .from(resources)
      .where(eq(resources.owner_id, userId))
      .orderBy(asc(resources.id))
      .limit(1)
      .get();
    if (!r) return false;
    if (r.kind === 'job' && (await forgetRuns(env, db, r.id, STEP_RUNS))) return true;
    await KINDS[r.kind].deleting?.(env, r);
    await deleteBlobs(env, r.id);
    await db.delete(resources).where(eq(resources.id, r.id));
    return true;
  },
  // The user groups of its namespace, one per step, as their DELETE route removes one: pictures, then the row (its
  // profile, threads and the shares into it go with it).
  async (env, db, userId) => {
    const g = await db.select({ id: groups.id }).from(groups).where(ownUserGroups(userId)).limit(1).get();
    if (!g) return false;
    await deleteGroup(env, db, [g.id]);
    return true;
  },
  // Threads it opened on others' resources and groups, with every comment in them.
  (_env, db, userId) => deleteSome(db, threads, eq(threads.created_by, userId)),
  // Its comments in others' threads stay, by "deleted user".
  (_env, db, userId) => unlinkSome(db, threadComments, threadComments.author_id, userId),
  (_env, db, userId) => deleteSome(db, tags, eq(tags.user_id, userId)),
  (_env, db, userId) => deleteSome(db, docNotifications, eq(docNotifications.user_id, userId)),
  // Memberships and invitations to it; invitations it sent keep their state, without its id. A group of someone else's
  // namespace keeps its owner as a founder; an organisation group it alone founded is left to the organisation's
  // founders and admins, who claim any role in it.
  (_env, db, userId) => deleteSome(db, members, eq(members.user_id, userId)),
  (_env, db, userId) => unlinkSome(db, members, members.invited_by, userId),
  (_env, db, userId) => deleteSome(db, mailSuppressions, eq(mailSuppressions.owner_id, userId)),
  // Its messages (sends, tests, invitations, replies), with their text and recipients.
  (_env, db, userId) => deleteSome(db, outbox, eq(outbox.owner_id, userId)),
  // The runs it triggered of others' jobs stay, by "deleted user" (needs the marker's name). Sends need no such step:
  // only an e-mail's owner sends it, and they went with the e-mail.
  (_env, db, userId) => renameSome(db, jobRuns, jobRuns.created_by, jobRuns.started_on, userId),
  // Its webhook endpoints: their delivery records first (a bounded step each), then the endpoints and its events.
  (_env, db, userId) =>
    deleteSome(
      db,
      webhookDeliveries,
      inArray(
        webhookDeliveries.webhook_id,
        db.select({ id: webhooks.id }).from(webhooks).where(eq(webhooks.owner_id, userId)),
      ),
    ),
  (_env, db, userId) => deleteSome(db, webhooks, eq(webhooks.owner_id, userId)),
  // An organisation's endpoints it created stay the organisation's, without its name.
  (_env, db, userId) => unlinkSome(db, webhooks, webhooks.created_by, userId),
  (_env, db, userId) => deleteSome(db, webhookEvents, eq(webhookEvents.owner_id, userId)),
  (_env, db, userId) => deleteSome(db, tokens, eq(tokens.user_id, userId)),
  // Its Idempotency-Key answers (sealed, but they are its requests').
  (_env, db, userId) => deleteSome(db, idempotencyKeys, eq(idempotencyKeys.account_id, userId)),
  // Last: the users row and the marker, together (anything a step missed cascades with the row).
  async (_env, db, userId) => {
    await db.batch([
      db.delete(users).where(eq(users.id, userId)),
      db.delete(accountDeletions).where(eq(accountDeletions.user_id, userId)),
    ]);
    return false;
  },
];

/**
 * Runs up to `budget` steps of one marked account's removal (a step that finds nothing left costs none); answers the
 * steps used and whether the account is gone.
 */
export async function continueDeletion(
  env: Env,
  db: Db,
  userId: number,
  budget: number,
): Promise<{ used: number; done: boolean }> {
  let used = 0;
  for (const step of STEPS) {
    for (;;) {
      if (used >= budget) return { used, done: false };
      if (!(await step(env, db, userId))) break;
      used++;
    }
  }
  return { used, done: true };
}

/** The scheduled() tick: continues every account still marked, within `budget` steps in all. */
export async function resumeDeletions(env: Env, db: Db, budget = deletionSteps(env)): Promise<number> {
  const marked = await db
    .select({ user_id: accountDeletions.user_id })
    .from(accountDeletions)
    .orderBy(asc(accountDeletions.started_on))
    .limit(10);
  let used = 0;
  for (const m of marked) {
    if (used >= budget) break;
    used += (await continueDeletion(env, db, m.user_id, budget - used)).used;
  }
  return used;
}

/** The accounts being deleted, oldest first (GET /v1/ops/deletions): the name each had and when it started. */
export async function pendingDeletions(db: Db) {
  return db
    .select({ username: accountDeletions.username, started_on: accountDeletions.started_on })
    .from(accountDeletions)
    .orderBy(asc(accountDeletions.started_on));
}

/** What the DELETE routes answer. */
export const deletionAnswers = {
  202: {
    description:
      'Deleted: it signs in nowhere and its name is free; the rest of what it owned is removed in the background',
    type: 'application/json',
    schema: () =>
      z.object({ status: z.literal('deleting'), message: z.string() }).meta({
        id: 'AccountDeletion',
        description: 'An account deleted: what it owned is still being removed',
        example: { status: 'deleting', message: 'the account is deleted; what it owned is being removed' },
      }),
  },
  204: { description: 'Deleted with everything it owned' },
  409: { description: 'An organisation account that owns its organisation (named): delete the organisation first' },
};

/**
 * The DELETE routes' work: marks the account, then runs up to deletionSteps() steps itself. 204 when it is gone, 202
 * when the scheduled() tick finishes the rest.
 */
export async function deleteAccount(env: Env, db: Db, user: User): Promise<Response> {
  await markDeleted(db, user);
  const { done } = await continueDeletion(env, db, user.id, deletionSteps(env));
  if (done) return noContent();
  return jsonResponse(
    { status: 'deleting', message: 'the account is deleted; what it owned is being removed' },
    { status: 202 },
  );
}
