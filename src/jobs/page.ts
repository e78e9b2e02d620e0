/**
 * The page of a job at its url (`/u/<user>/j/<job>`): a small read-only summary (name,
 * summary, schedule, whether it is enabled, and its latest runs with status and time).
 * Pure: the route reads the job and its runs (page-routes.ts).
 */
import { escapeHtml } from '../markup/escape';
import { strictPage } from '../markup/strict-page';

interface JobPageRun {
  status: string;
  trigger: string;
  started_on: string;
  /** Seconds; null while running. */
  duration: number | null;
}

export interface JobPageInput {
  name: string;
  summary: string;
  schedule: string | null;
  enabled: boolean;
  /** The latest top-level runs, newest first; null when the reader may not see runs (a public share only). */
  runs: JobPageRun[] | null;
}

/** Runs the page lists. */
export const JOB_PAGE_RUNS = 10;

export const JOB_PAGE_STYLE =
  'body{margin:0;background:#f4f5f7;color:#1f2328;font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif}' +
  'main{max-width:760px;margin:32px auto;padding:24px 28px;background:#fff;border:1px solid #d8dde3;border-radius:8px}' +
  'h1{font-size:22px;margin:0 0 4px}p.summary{margin:0 0 16px;color:#57606a}' +
  'dl{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px;margin:0 0 20px}dt{color:#57606a}dd{margin:0}' +
  'code{font:13px ui-monospace,monospace}table{width:100%;border-collapse:collapse}' +
  'th,td{text-align:left;padding:6px 8px;border-bottom:1px solid #eaeef2}th{font-weight:600;color:#57606a}' +
  '.status-success{color:#1a7f37}.status-failed,.status-rejected,.status-canceled{color:#cf222e}.status-processing,.status-canceling{color:#9a6700}';

const time = (iso: string) => `${iso.slice(0, 19).replace('T', ' ')} UTC`;
const seconds = (d: number | null) => (d === null ? '' : `${d < 10 ? d.toFixed(1) : Math.round(d)} s`);

export function renderJobPage(job: JobPageInput, policy: string): string {
  const runs =
    job.runs === null
      ? '<p>This job is public: anyone may read what it is and when it runs, as here. Its runs and their output are ' +
        'not public; to see them, or to run it, ask its owner to share it with you and sign in.</p>'
      : job.runs.length === 0
        ? '<p>No runs yet.</p>'
        : '<table><thead><tr><th>Started</th><th>Status</th><th>Trigger</th><th>Duration</th></tr></thead><tbody>' +
          job.runs
            .map(
              (r) =>
                `<tr><td><time datetime="${escapeHtml(r.started_on)}">${escapeHtml(time(r.started_on))}</time></td>` +
                `<td class="status-${escapeHtml(r.status)}">${escapeHtml(r.status)}</td><td>${escapeHtml(r.trigger)}</td><td>${seconds(r.duration)}</td></tr>`,
            )
            .join('') +
          '</tbody></table>';
  const body =
    `<main><h1>${escapeHtml(job.name)}</h1>` +
    (job.summary ? `<p class="summary">${escapeHtml(job.summary)}</p>` : '') +
    `<dl><dt>Schedule</dt><dd>${job.schedule ? `<code>${escapeHtml(job.schedule)}</code>` : 'not scheduled'}</dd>` +
    `<dt>Enabled</dt><dd>${job.enabled ? 'yes' : 'no'}</dd></dl>` +
    `<h2>Last runs</h2>${runs}</main>`;
  return strictPage({ title: job.name, style: JOB_PAGE_STYLE, body, policy });
}
