// The delivery pass reads an endpoint's pending deliveries by their own index: what is due
// now and when the next falls due cost the same whether the endpoint has delivered ten events
// or a million in retention (before migration 0033 both walked every delivery it ever had),
// and a page of the due ones is the index's first entries, not a sort of every one due.
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { dbFor } from '../../../src/core/context';
import { dueQuery, nextDueQuery } from '../../../src/webhooks/attempts';

/** SQLite's plan of a query, one detail line per step. */
async function plan(query: { toSQL(): { sql: string; params: unknown[] } }): Promise<string[]> {
  const { sql, params } = query.toSQL();
  const { results } = await env.DB.prepare(`EXPLAIN QUERY PLAN ${sql}`)
    .bind(...params)
    .all<{ detail: string }>();
  return results.map((r) => r.detail);
}

describe('the pending deliveries index', () => {
  it('the due read and the next-due read search webhook_deliveries_pending by endpoint', async () => {
    const db = dbFor(env);
    for (const query of [dueQuery(db, 1), nextDueQuery(db, 1)]) {
      const steps = await plan(query);
      expect(steps.filter((s) => s.includes('webhook_deliveries'))).toEqual([
        expect.stringMatching(
          /^SEARCH webhook_deliveries USING (COVERING )?INDEX webhook_deliveries_pending \(webhook_id=\? AND next_attempt_on[<>]\?\)$/,
        ),
      ]);
    }
  });

  it('a page of due deliveries is read in the order they fell due, without sorting the backlog', async () => {
    // In event order the due read sorted every delivery due (a temporary B-tree): each page of
    // a backlog of n cost n rows read, so draining it cost n * n / PAGE.
    const steps = await plan(dueQuery(dbFor(env), 1));
    expect(steps.some((s) => s.includes('TEMP B-TREE'))).toBe(false);
  });
});
