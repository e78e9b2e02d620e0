/**
 * The sends of e-mails (Mail.sends), for many mails in one statement: the newest
 * SENDS_SHOWN of each, oldest first, with their bounce and complaint counts, as stats/runs
 * answers them (src/mail/stats-routes.ts). A listed mail is one the caller may read, and
 * with it its sends (REST: stats/runs needs r).
 */
import DataLoader from 'dataloader';
import { asc } from 'drizzle-orm';
import type { Db } from '../core/context';
import { countedRunsQuery } from '../mail/send-history';
import { mailRuns } from '../mail/schema';
import { rfc2822, inJson } from './values';

const SENDS_SHOWN = 100;

export function mailSendsLoader(db: Db) {
  return new DataLoader(async (ids: readonly number[]) => {
    const rows = await countedRunsQuery(db).where(inJson(mailRuns.resource_id, ids)).orderBy(asc(mailRuns.id));
    return ids.map((id) =>
      rows
        .filter((r) => r.resource_id === id)
        .slice(-SENDS_SHOWN)
        .map((r) => ({ ...r, id: r.send_id, started: rfc2822(r.started_on) })),
    );
  });
}
