/**
 * The mapping parser: `LABEL => REFERENCE[,key=value]...` lines bind layout labels to
 * plots. Pure; unit-tested in test/worker/grids/mapping.unit.test.ts.
 *
 * - Whitespace anywhere on a line is removed first; lines without `=>` are skipped.
 * - LABEL is [A-Za-z0-9]+; REFERENCE is /u/<user>/p/<plot> or a plot's bare shortname
 *   ([A-Za-z0-9_-]+), kept as written. A line whose label or reference has another form
 *   is skipped like a line without `=>` (it does not count for "last line wins").
 * - Parameters are comma-separated key=value pairs (split at the first `=`); empty pairs
 *   and pairs without a key or without `=` are ignored. h and c are aliases of
 *   include_header and include_caption; t/true and f/false (any case) set them, any other
 *   value gives the default (false). Within a line, a later pair overrides an earlier one.
 *   Unknown keys are kept (value as written) in params but never reach the cell's inst.
 * - A label on several lines: the last line wins.
 */

export interface Binding {
  ref: string;
  include_header: boolean;
  include_caption: boolean;
  /** The parameters with defaults applied: include_header, include_caption, then unknown keys. */
  params: Record<string, string | boolean>;
}

const LABEL = /^[A-Za-z0-9]+$/;
const REFERENCE = /^(?:\/u\/[^/,]+\/p\/[^/,]+|[A-Za-z0-9_-]+)$/;
const ALIASES = new Map<string, 'include_header' | 'include_caption'>([
  ['h', 'include_header'],
  ['include_header', 'include_header'],
  ['c', 'include_caption'],
  ['include_caption', 'include_caption'],
]);

/** t/true → true, f/false → false (any case); anything else → the default (false). */
export function flag(value: string): boolean {
  const v = value.toLowerCase();
  return v === 't' || v === 'true';
}

function parseMappingLine(raw: string): [string, Binding] | null {
  const line = raw.replace(/\s+/g, '');
  const arrow = line.indexOf('=>');
  if (arrow < 0) return null;
  const label = line.slice(0, arrow);
  const [ref = '', ...pairs] = line.slice(arrow + 2).split(',');
  if (!LABEL.test(label) || !REFERENCE.test(ref)) return null;
  const known = { include_header: false, include_caption: false };
  const unknown = new Map<string, string>();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    const key = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    const canonical = ALIASES.get(key);
    if (canonical) known[canonical] = flag(value);
    else unknown.set(key, value);
  }
  return [
    label,
    { ref, ...known, params: Object.fromEntries<string | boolean>([...Object.entries(known), ...unknown]) },
  ];
}

/** All bindings of a mapping file, by label (the last valid line of a label wins). */
export function parseMapping(text: string): Map<string, Binding> {
  const out = new Map<string, Binding>();
  for (const raw of text.split(/\r\n|\n|\r/)) {
    const parsed = parseMappingLine(raw);
    if (parsed) out.set(parsed[0], parsed[1]);
  }
  return out;
}
