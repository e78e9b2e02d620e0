/**
 * stats/ of an e-mail: stats/runs, one row per send (mail_runs), as a text table or JSON, after the days of sends
 * retention rolled up (mail_run_days): whole, or page by page as every listing pages (core/paging.ts: a listing in
 * two parts, the days by (day, status), then the sends by id).
 */
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import { text } from '../core/examples';
import { jsonResponse, textResponse, wantsJson } from '../core/http';
import { listingQuery, partsPageResponse } from '../core/listing';
import {
  pageOfParts,
  partsAfter,
  partsPageRequest,
  type KeyPart,
  type PageRequest,
  type PartShapes,
  type PartsPage,
} from '../core/paging';
import { fixedFolderRoute, type ResourceCtx, type ResourceRoutes } from '../core/resource';
import { mailRunDays, mailRuns } from './schema';
import { countedRunsQuery, type CountedRun } from './send-history';
import { once } from '../core/once';

/** One send as stats/runs answers it: the mail_runs row, its start named timestamp, its bounces and complaints. */
export type RunRow = Omit<CountedRun, 'id' | 'resource_id' | 'started_on' | 'completed_on'> & { timestamp: string };

const runRow = (r: CountedRun): RunRow => ({
  send_id: r.send_id,
  timestamp: r.started_on,
  duration: r.duration,
  status: r.status,
  action: r.action,
  adhoc: r.adhoc,
  created_by: r.created_by,
  recipients: r.recipients,
  delivered: r.delivered,
  suppressed: r.suppressed,
  skipped: r.skipped,
  failed: r.failed,
  bounced: r.bounced,
  complained: r.complained,
});

/** stats/runs as a plain-text table: a header, the rolled-up days, then one row per send, oldest first. */
export function runsTable(rows: RunRow[], rolled: RolledUpDay[] = []): string {
  const head = [
    'timestamp',
    'duration',
    'status',
    'action',
    'recipients',
    'delivered',
    'suppressed',
    'skipped',
    'failed',
    'bounced',
    'complained',
  ];
  const cells = rolled
    .map(rolledUpCells)
    .concat(
      rows.map((r) => [
        r.timestamp,
        r.duration.toFixed(2),
        r.status,
        r.action + (r.adhoc ? '(to)' : ''),
        ...[r.recipients, r.delivered, r.suppressed, r.skipped, r.failed, r.bounced, r.complained].map(String),
      ]),
    );
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  return (
    [head, ...cells]
      .map((c) =>
        c
          .map((v, i) => v.padEnd(widths[i]!))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

/** Sends retention removed, per day and status: `runs` sends and their summed counts. */
export type RolledUpDay = Omit<typeof mailRunDays.$inferSelect, 'resource_id'> & { rolled_up: true };

/** A rolled-up day as a table row: the day as its timestamp, the number of sends as its action. */
const rolledUpCells = (d: RolledUpDay): string[] => [
  d.day,
  '-',
  d.status,
  `(${d.runs} ${d.runs === 1 ? 'send' : 'sends'})`,
  ...[d.recipients, d.delivered, d.suppressed, d.skipped, d.failed].map(String),
  // Rolled-up days keep no bounce or complaint counts.
  '-',
  '-',
];

const rolledUp = ({ resource_id: _r, ...d }: typeof mailRunDays.$inferSelect): RolledUpDay => ({
  ...d,
  rolled_up: true,
});

/** stats/runs as a listing in two parts: the rolled-up days by (day, status), then the sends by id, oldest first. */
const RUNS_PARTS: PartShapes = [['string', 'string'], ['number']];

/** Up to `n` (default: all) rolled-up days of the e-mail after `after` ((day, status); null: from the oldest). */
const daysAfter = (rc: ResourceCtx, after: readonly KeyPart[] | null, n = -1) =>
  rc.db
    .select()
    .from(mailRunDays)
    .where(
      and(
        eq(mailRunDays.resource_id, rc.resource.id),
        after ? sql`(${mailRunDays.day}, ${mailRunDays.status}) > (${after[0]}, ${after[1]})` : undefined,
      ),
    )
    .orderBy(asc(mailRunDays.day), asc(mailRunDays.status))
    .limit(n);

/** Up to `n` (default: all) sends of the e-mail after the send `after` (its id; null: from the oldest). */
const sendsAfter = (rc: ResourceCtx, after: readonly KeyPart[] | null, n = -1) =>
  countedRunsQuery(rc.db)
    .where(and(eq(mailRuns.resource_id, rc.resource.id), after ? gt(mailRuns.id, Number(after[0])) : undefined))
    .orderBy(asc(mailRuns.id))
    .limit(n);

/** One page of stats/runs: the rolled-up days and the sends after the cursor, in one batch (one round trip). */
async function runsPage(rc: ResourceCtx, page: PageRequest): Promise<PartsPage<RolledUpDay, RunRow>> {
  const from = partsAfter(page);
  const sends = sendsAfter(rc, from.second, page.limit + 1);
  const [days, kept] =
    from.first === 'past' ? [[], await sends] : await rc.db.batch([daysAfter(rc, from.first, page.limit + 1), sends]);
  const { first, second, next } = pageOfParts(page, days.map(rolledUp), kept, [
    (d) => [d.day, d.status],
    (r) => [r.id],
  ]);
  return { first, second: second.map(runRow), next };
}

async function statsRuns(rc: ResourceCtx): Promise<Response> {
  const page = partsPageRequest(rc.url, RUNS_PARTS);
  const table = (days: RolledUpDay[], rows: RunRow[]) => runsTable(rows, days);
  if (page.paged) return partsPageResponse(rc.req, rc.url, await runsPage(rc, page), table);
  const [days, kept] = await rc.db.batch([daysAfter(rc, null), sendsAfter(rc, null)]);
  const rows = kept.map(runRow);
  const rolled = days.map(rolledUp);
  return wantsJson(rc.req)
    ? jsonResponse([...rolled, ...rows], { nvmType: 'file' })
    : textResponse(runsTable(rows, rolled));
}

/** What the send history reads like, as runsTable writes it. */
const runsTableExample = once(() =>
  runsTable([
    {
      send_id: '20251002093000-5e1f9a0c',
      timestamp: '2025-10-02T09:30:00.118Z',
      duration: 2.41,
      status: 'delivered',
      action: 'send',
      adhoc: false,
      created_by: 'alice',
      recipients: 42,
      delivered: 41,
      suppressed: 1,
      skipped: 0,
      failed: 0,
      bounced: 0,
      complained: 0,
    },
  ]),
);

export function statsRoutes(r: ResourceRoutes): void {
  fixedFolderRoute(r, 'stats', ['runs']);
  r.get('/stats/runs', {
    summary:
      'One row per send, oldest first: timestamp, duration (s), final status; text table or JSON; ?limit and ?cursor page it (the Link header)',
    need: 'r',
    query: listingQuery,
    responses: {
      200: { description: 'Send history, oldest first', type: 'text/plain', schema: () => text(runsTableExample()) },
    },
    handler: statsRuns,
  });
}
