/**
 * Run statistics of jobs for the client's job listing (`last_run_status last_run_time
 * run_count current_step triggers`), for many jobs in one statement. run_count adds the runs
 * retention rolled up into per-day counts (job_run_days). Runs are never
 * public: the resolvers show them only where src/gql/jobs.ts shows runs.
 */
import DataLoader from 'dataloader';
import { sql } from 'drizzle-orm';
import type { Db } from '../core/context';

export interface JobStats {
  runs: number;
  /** Triggers the job's top-level runs have come from. */
  triggers: string[];
  last_status: string;
  last_started: string;
  /** Child runs of the latest run (its completed or running chain steps). */
  last_children: number;
}

export function jobStatsLoader(db: Db): DataLoader<number, JobStats | null> {
  return new DataLoader(async (ids) => {
    const rows = await db.all<{
      job_id: number;
      runs: number;
      triggers: string;
      last_status: string;
      last_started: string;
      last_children: number;
    }>(sql`
      with agg as (
        select job_id, count(*) as runs, json_group_array(distinct "trigger") as triggers, max(id) as last_id
        from job_runs where top = 1 and job_id in (select value from json_each(${JSON.stringify(ids)})) group by job_id)
      select agg.job_id, agg.runs + coalesce((select sum(d.runs) from job_run_days d where d.job_id = agg.job_id), 0) as runs,
        agg.triggers, l.status as last_status, l.started_on as last_started,
        (select count(*) from job_runs c where c.parent_id = l.id) as last_children
      from agg join job_runs l on l.id = agg.last_id`);
    const byId = new Map(rows.map((r) => [r.job_id, { ...r, triggers: JSON.parse(r.triggers) as string[] }]));
    return ids.map((id) => byId.get(id) ?? null);
  });
}
