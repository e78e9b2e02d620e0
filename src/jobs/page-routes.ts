/**
 * The page of a job at its url, `/u/<user>/j/<job>` (jobs/page.ts renders it): the same
 * visibility as the job (public jobs need no token; anyone else who may not read it: 404),
 * the runs only to readers who may see runs (never through a public share alone). The job,
 * its entries and its latest runs are one D1 round trip.
 */
import { htmlPage } from '../core/examples';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Api } from '../core/api';
import { sha256Base64 } from '../core/crypto';
import { loadUserPath } from '../core/resource';
import { pageHeaders, strictPolicy } from '../markup/strict-page';
import { yesNo } from '../core/yes-no';
import { jobKind } from './kind';
import { JOB_PAGE_RUNS, JOB_PAGE_STYLE, renderJobPage } from './page';
import { durationOf } from './run/reads';
import { jobRuns } from './schema';

const ALLOW = ["img-src 'none'"];

export function jobPageRoute(api: Api): void {
  api.get('/u/:user/j/:job', {
    summary:
      "A job's page at its url: name, summary, schedule and its latest runs (runs only for readers who may see them)",
    tag: 'pages',
    auth: 'optional',
    edge: 'cache',
    responses: {
      200: { description: 'The job as an HTML page', type: 'text/html', schema: () => htmlPage('nightly') },
    },
    handler: async (ctx) => {
      const rc = await loadUserPath(ctx, jobKind, undefined, {
        entries: true,
        rows: (c, id) =>
          c.db
            .select({
              status: jobRuns.status,
              trigger: jobRuns.trigger,
              started_on: jobRuns.started_on,
              completed_on: jobRuns.completed_on,
            })
            .from(jobRuns)
            .where(and(sql`${jobRuns.job_id} = ${id}`, eq(jobRuns.top, 1)))
            .orderBy(desc(jobRuns.started_on), desc(jobRuns.id))
            .limit(JOB_PAGE_RUNS),
      });
      const e = rc.preloaded!.entries!;
      type Row = { status: string; trigger: string; started_on: string; completed_on: string | null };
      const rows = rc.preloaded!.rows as Row[];
      const hash = await sha256Base64(JOB_PAGE_STYLE);
      const html = renderJobPage(
        {
          name: e.get('name') || rc.resource.name,
          summary: e.get('summary') ?? '',
          schedule: e.get('config/schedule')?.trim() || null,
          enabled: yesNo(e.get('config/enabled'), true),
          // Runs are never public: a reader through a public share alone sees none.
          runs: rc.access.viaPublicOnly
            ? null
            : rows.map((r) => ({ ...r, duration: r.completed_on ? durationOf(r.started_on, r.completed_on) : null })),
        },
        strictPolicy(hash, ALLOW, true),
      );
      return new Response(html, { headers: pageHeaders(strictPolicy(hash, ALLOW)) });
    },
  });
}
