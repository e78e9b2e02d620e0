/**
 * The plots a dashboard's boxes draw. The mapping's references are resolved when the page is
 * drawn (composition path `grid.plots`), with the rights of the grid's owner and of whoever
 * wrote the mapping; a reference either may not read is the same as a missing one (the box
 * shows the same placeholder: nothing tells whether it exists). One D1 round trip reads the
 * verdicts and the entries of every plot named. Bounded: at most MAX_BOX_PLOTS distinct
 * plots and MAX_BOX_DATA bytes of their data per page; boxes past that show a note.
 */
import { entriesQuery, entryValues, lenders, type StoredAuthorship, type StoredEntry } from '../core/entries';
import { composedReads, plotIdSql, plotReference, principalsWith, type ResourceCtx } from '../core/resource';
import type { MetaData } from './build';

/** Distinct plots one dashboard draws. */
const MAX_BOX_PLOTS = 64;
/** Bytes of plot data one dashboard reads. */
const MAX_BOX_DATA = 8 * 1024 * 1024;

export type BoxPlot =
  | { state: 'drawn'; name: string; values: Map<string, string> }
  | { state: 'unavailable' }
  | { state: 'over'; why: string };

/** Each reference of the mapping with what its boxes show. */
export async function boxPlots(
  rc: ResourceCtx,
  meta: MetaData,
  mapping: StoredAuthorship | undefined,
): Promise<Map<string, BoxPlot>> {
  const refs = [...new Set(Object.values(meta).map((m) => m.ref))];
  const out = new Map<string, BoxPlot>();
  const drawn = refs.slice(0, MAX_BOX_PLOTS);
  for (const ref of refs.slice(MAX_BOX_PLOTS))
    out.set(ref, { state: 'over', why: `a dashboard draws at most ${MAX_BOX_PLOTS} plots` });
  if (!drawn.length) return out;
  const principals = principalsWith([rc.owner.id], lenders(mapping, rc.owner.id));
  const { verdicts, also } = await composedReads(
    rc.db,
    drawn.map((ref) => ({ path: 'grid.plots' as const, principals: principals(ref), ref: plotReference(ref) })),
    drawn.map((ref) => entriesQuery(rc.db, plotIdSql(ref))),
  );
  let bytes = 0;
  for (const [i, ref] of drawn.entries()) {
    const v = verdicts[i]!;
    if (!v.ok) {
      out.set(ref, { state: 'unavailable' });
      continue;
    }
    const rows = also[i] as StoredEntry[];
    const size = rows.reduce((n, r) => n + r.size, 0);
    if (bytes + size > MAX_BOX_DATA) {
      out.set(ref, { state: 'over', why: `a dashboard reads at most ${MAX_BOX_DATA / 1024 / 1024} MiB of plot data` });
      continue;
    }
    bytes += size;
    const r = plotReference(ref);
    out.set(ref, { state: 'drawn', name: r.shortname ?? r.name, values: await entryValues(rc.env, rows) });
  }
  return out;
}
