/**
 * The sends of e-mails as stats/runs and GraphQL show them: mail_runs rows, each with the
 * bounces and complaints reported for its messages (mail_events), counted in one statement.
 */
import { and, eq, getTableColumns, sql } from 'drizzle-orm';
import type { Db } from '../core/context';
import { mailEvents, mailRuns, type MailRun } from './schema';

/** A send's bounces and complaints (mail_events), counted beside its row. */
export type CountedRun = MailRun & { bounced: number; complained: number };

const eventCount = (type: 'bounced' | 'complained') =>
  sql<number>`(select count(*) from ${mailEvents} where ${and(
    eq(mailEvents.resource_id, mailRuns.resource_id),
    eq(mailEvents.send_id, mailRuns.send_id),
    eq(mailEvents.type, type),
  )})`
    .mapWith(Number)
    // Named: D1 answers a batch keyed by column name, and the two counts read the same but for a parameter.
    .as(type);

/** The sends of e-mails, each with its bounce and complaint counts (one statement, for a batch). */
export function countedRunsQuery(db: Db) {
  return db
    .select({ ...getTableColumns(mailRuns), bounced: eventCount('bounced'), complained: eventCount('complained') })
    .from(mailRuns);
}
