/**
 * Where the grid's parse lives: the parsed results are text entries json/data.json and
 * json/meta_data.json next to layout and mapping, rewritten whenever either source is
 * written or cleared. I/O only; the parsing itself is in layout.ts, mapping.ts, build.ts.
 */
import type { BatchItem } from 'drizzle-orm/batch';
import type { Db } from '../core/context';
import { entryQuery, entryUpsert, entryValue, readEntry, writeEntry } from '../core/entries';
import type { Preload, ResourceCtx } from '../core/resource';
import { badRequest } from '../core/errors';
import type { Resource } from '../db/schema';
import { buildData, buildMeta, type GridData, type MetaData } from './build';
import { LayoutError, parseLayout, type ParsedLayout } from './layout';
import { parseMapping } from './mapping';

export const DATA_PATH = 'json/data.json';
export const META_PATH = 'json/meta_data.json';

/** The `validate` hook of the layout entry: a fault of rules 1-3 answers 400 with its row and column. */
export function validateLayout(value: string): void {
  try {
    parseLayout(value);
  } catch (err) {
    if (err instanceof LayoutError)
      throw badRequest(`invalid layout: ${err.message}`, { row: err.row, column: err.column });
    throw err;
  }
}

export interface GridParse {
  layout: ParsedLayout | null;
  data: GridData;
  meta: MetaData;
}

/** Parses both sources (pure). A missing layout (never written or cleared) gives the empty structure. */
export function parseGrid(layout: string | null, mapping: string | null, gridId: number): GridParse {
  let parsed: ParsedLayout | null = null;
  if (layout !== null) {
    try {
      parsed = parseLayout(layout);
    } catch (err) {
      if (!(err instanceof LayoutError)) throw err; // stored layouts were validated; never fail a read on one
    }
  }
  const bindings = parseMapping(mapping ?? '');
  return { layout: parsed, data: buildData(parsed, bindings, gridId), meta: buildMeta(bindings, gridId) };
}

/** The parse entries of a grid made from its sources (path -> JSON text). */
export function parsedEntries(layout: string | null, mapping: string | null, gridId: number): Record<string, string> {
  const { data, meta } = parseGrid(layout, mapping, gridId);
  return { [DATA_PATH]: JSON.stringify(data), [META_PATH]: JSON.stringify(meta) };
}

/** Both sources in one D1 round trip. */
export async function readSources(env: Env, db: Db, gridId: number): Promise<[string | null, string | null]> {
  const [layout, mapping] = await db.batch([entryQuery(db, gridId, 'layout'), entryQuery(db, gridId, 'mapping')]);
  return Promise.all([entryValue(env, layout[0]), entryValue(env, mapping[0])]);
}

type Source = 'layout' | 'mapping';

/** What a write of one source reads with the grid (EntrySpec.writePreload): the other source. */
export const otherSourcePreload = (path: Source): Preload => ({
  rows: (ctx, id) => entryQuery(ctx.db, id, path === 'layout' ? 'mapping' : 'layout'),
});

/** The sources as a write of `path` (value null: a clear) leaves them, the other as read with the grid. */
async function sourcesAfter(
  rc: ResourceCtx,
  path: Source,
  value: string | null,
): Promise<[string | null, string | null]> {
  const other = await entryValue(rc.env, rc.preloaded?.rows?.[0] as Parameters<typeof entryValue>[1]);
  return path === 'layout' ? [value, other] : [other, value];
}

/** The parse of the sources a write leaves, stored in the write's own batch (EntrySpec.writeStatements). */
export async function parseStatements(
  rc: ResourceCtx,
  path: Source,
  value: string | null,
): Promise<{ statements: BatchItem<'sqlite'>[]; after: () => Promise<void> }> {
  const [layout, mapping] = await sourcesAfter(rc, path, value);
  const parsed = parsedEntries(layout, mapping, rc.resource.id);
  const upserts = await Promise.all(
    Object.entries(parsed).map(([p, v]) => entryUpsert(rc.env, rc.db, rc.resource.id, p, v, null)),
  );
  return {
    statements: upserts.map((u) => u.statement),
    after: async () => void (await Promise.all(upserts.map((u) => u.after()))),
  };
}

/**
 * After a write whose batch stored the parse: the sources are read again, and a racing
 * writer's change (the parse was made from a stale pair) is settled by reparse.
 */
export async function settleParse(rc: ResourceCtx, path: Source, value: string | null): Promise<void> {
  const parsedFrom = await sourcesAfter(rc, path, value);
  const now = await readSources(rc.env, rc.db, rc.resource.id);
  if (now[0] === parsedFrom[0] && now[1] === parsedFrom[1]) return;
  await reparse(rc.env, rc.db, rc.resource);
}

/**
 * Re-parses both sources and stores the results. Two writers racing (one on layout, one
 * on mapping) could each parse a stale pair; so after storing, the sources are read again
 * and the parse is redone until it was made from the sources as they stand. The last
 * writer of the parse has always checked after its own write, so the stored parse
 * matches the stored sources once the writes settle.
 */
async function reparse(env: Env, db: Db, grid: Resource): Promise<void> {
  let sources = await readSources(env, db, grid.id);
  for (let attempt = 0; attempt < 8; attempt++) {
    const { data, meta } = parseGrid(sources[0], sources[1], grid.id);
    await Promise.all([
      writeEntry(env, db, grid, DATA_PATH, JSON.stringify(data), null),
      writeEntry(env, db, grid, META_PATH, JSON.stringify(meta), null),
    ]);
    const now = await readSources(env, db, grid.id);
    if (now[0] === sources[0] && now[1] === sources[1]) return;
    sources = now;
  }
}

/** The stored parse results as JSON text (the empty parse when nothing was written yet). */
export async function readParsed(env: Env, db: Db, gridId: number, which: 'data' | 'meta'): Promise<string> {
  return parsedOr(await readEntry(env, db, gridId, which === 'data' ? DATA_PATH : META_PATH), gridId, which);
}

/** A stored parse result, or the empty parse's when nothing was written yet. */
export function parsedOr(stored: string | null | undefined, gridId: number, which: 'data' | 'meta'): string {
  if (stored != null) return stored;
  const { data, meta } = parseGrid(null, null, gridId);
  return JSON.stringify(which === 'data' ? data : meta);
}
