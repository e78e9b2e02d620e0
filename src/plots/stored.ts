/**
 * A plot as stored, made ready to draw: its `config/` entries read into a PlotConfig, and
 * the hash of everything a drawing depends on (what caches, ETags and PNG keys are keyed
 * by: any write to the data or the config changes it). Pure but for hashing.
 */
import { sha256Hex } from '../core/crypto';
import { DEFAULT_PLOT_TYPE, PLOT_TYPES, type PlotConfig, type PlotType } from './model';

/** Bump when the same plot draws differently (the drawing code changed). */
const DRAWING_VERSION = 'plot-1';

const isType = (t: string): t is PlotType => (PLOT_TYPES as readonly string[]).includes(t);

/** The plot's config as its entries hold it (path -> value; unset entries read as empty). */
export function plotConfigOf(values: ReadonlyMap<string, string>): PlotConfig {
  const get = (path: string) => values.get(`config/${path}`) ?? '';
  const type = get('type').trim();
  return {
    type: isType(type) ? type : DEFAULT_PLOT_TYPE,
    title: get('title'),
    caption: get('caption'),
    colors: get('colors/colors'),
    colorType: get('colors/type').trim(),
    legend: {
      format: get('legend/format'),
      layout: get('legend/layout'),
      position: get('legend/position'),
      type: get('legend/type'),
    },
    cell: {
      align: get('table/cell/align'),
      format: get('table/cell/format'),
      border: get('table/cell/border'),
      padding: get('table/cell/padding'),
      text: get('table/cell/text'),
      width: get('table/cell/width'),
    },
    customCss: get('custom/custom.css'),
  };
}

/**
 * The entry holding the SHA-256 of `data`, written in the batch of every write of `data`
 * (plots/kind.ts): a drawing's hash is known without reading the data (up to 2 MiB), so a
 * cached drawing costs a read of the config alone. Not listed or served: a file of the
 * plot's own `files/` folder, whose listing names only the drawings.
 */
export const DATA_DIGEST = 'files/data.sha256';

/** The digest of the plot's data: the stored one, else (data written before it was kept) computed. */
async function dataDigest(values: ReadonlyMap<string, string>): Promise<string> {
  return values.get(DATA_DIGEST) ?? sha256Hex(values.get('data') ?? '');
}

/** The hash of one drawing: the drawing code, what is drawn (`what`: format and size), the data, the config, the name. */
export async function drawingHash(values: ReadonlyMap<string, string>, name: string, what: string): Promise<string> {
  return sha256Hex(JSON.stringify([DRAWING_VERSION, what, name, await dataDigest(values), plotConfigOf(values)]));
}
