/**
 * Drawing a stored plot: its data parsed, its config read, drawn as SVG or as text (plain or
 * ANSI colour). Drawings are kept in an in-isolate cache by the hash of what they depend on
 * (stored.ts), bounded by bytes: any write to the data or the config changes the hash, so a
 * cached drawing is never stale. Data that no longer parses (written before a rule) draws as
 * the parse error, never as a 500.
 */
import { BoundedCache } from '../core/bounded-cache';
import { parseCsv } from './csv';
import { DEFAULT_SIZE, DEFAULT_TEXT_WIDTH, type Size } from './model';
import { drawingHash, plotConfigOf } from './stored';
import { drawSvg } from './svg';
import { drawText } from './text';

type TextFormat = 'txt' | 'ansi';

interface SvgRequest {
  format: 'svg';
  size?: Size;
  /** Prefix of ids, classes and CSS (unique on the page the SVG goes into). */
  scope?: string;
}
interface TextRequest {
  format: TextFormat;
  width?: number;
}
export type DrawRequest = SvgRequest | TextRequest;

/** Drawings one isolate keeps, by their hash: at most 16 Mi characters of them (and 10,000). */
const cache = new BoundedCache<string, string>({
  maxEntries: 10_000,
  maxWeight: 16 * 1024 * 1024,
  weigh: (drawing) => drawing.length,
});

/** What a request draws, as the hash's `what`. */
export function requestKey(req: DrawRequest): string {
  if (req.format === 'svg') {
    const s = req.size ?? DEFAULT_SIZE;
    return `svg ${s.width}x${s.height} ${req.scope ?? 'plot'}`;
  }
  return `${req.format} ${req.width ?? DEFAULT_TEXT_WIDTH}`;
}

/**
 * The drawing and its hash (the ETag and cache key), from the cache when drawn before. `values` may leave out `data`
 * when it holds its digest (stored.ts): `loadData` then reads it, only on a miss.
 */
export async function drawStored(
  values: ReadonlyMap<string, string>,
  name: string,
  req: DrawRequest,
  loadData?: () => Promise<string>,
): Promise<{ drawing: string; hash: string }> {
  const hash = await drawingHash(values, name, requestKey(req));
  const hit = cache.get(hash);
  if (hit !== undefined) return { drawing: hit, hash };
  const data = values.get('data') ?? (loadData ? await loadData() : '');
  const parsed = parseCsv(data);
  const table = 'table' in parsed ? parsed.table : { header: [''], rows: [] };
  const config = plotConfigOf(values);
  if (!('table' in parsed)) config.caption = `The data could not be read: line ${parsed.line}: ${parsed.error}`;
  const drawing =
    req.format === 'svg'
      ? drawSvg(table, config, { scope: req.scope ?? 'plot', name, size: req.size ?? DEFAULT_SIZE })
      : drawText(table, config, { width: req.width ?? DEFAULT_TEXT_WIDTH, ansi: req.format === 'ansi' });
  cache.set(hash, drawing);
  return { drawing, hash };
}
