/**
 * The clients' slicing selectors and the instruction lines that start with them
 * (`config/colors/colors`, `config/table/cell/*`): `<rows> <columns> <instruction...>`.
 *
 * Each of `<rows>` and `<columns>` is a comma list of parts, every part a single index
 * (`3`, `-1`) or a Python slice (`:`, `1:`, `:-1`, `2:5`, `::2`, `5:1:-1`). Indices count
 * the header row as row 0 and the index column as column 0, as the client's Selector does
 * (`.loc[:, :]` is `1: 1:`); negatives count from the end; slices clamp like Python's, so
 * an index past the end selects nothing rather than failing (the data may shrink later).
 * Text after `--` on a line is a comment, as in the clients' documentation.
 */

/** One part of an axis: Python's `start:stop:step` (a single index is a slice of one). */
interface Part {
  start: number | undefined;
  stop: number | undefined;
  step: number;
  /** A single index (`3`), not a slice: only that one, when it exists. */
  single: boolean;
}

export type Axis = Part[];

export interface Instruction {
  /** 1-based line of the entry the instruction is on. */
  line: number;
  rows: Axis;
  cols: Axis;
  /** The words after the two selectors. */
  args: string[];
}

/** Most instruction lines one entry holds: drawing applies each to every cell it selects. */
export const MAX_INSTRUCTIONS = 256;

const INT = /^[+-]?\d{1,9}$/;

/** One axis (`1:-1`, `0,2,5:`, `:`), or why it is not one. */
export function parseAxis(token: string): Axis | string {
  if (!token) return 'an empty selector';
  const parts: Axis = [];
  for (const raw of token.split(',')) {
    const bits = raw.split(':');
    if (bits.length > 3 || !raw)
      return `'${clip(token)}' is not a selector (use :, a:b, a:b:c, an index or a comma list)`;
    const nums = bits.map((b) => (b === '' ? undefined : INT.test(b) ? Number(b) : NaN));
    if (nums.some((v) => v !== undefined && Number.isNaN(v)))
      return `'${clip(token)}' is not a selector (indices are whole numbers)`;
    if (bits.length === 1) {
      parts.push({ start: nums[0], stop: undefined, step: 1, single: true });
      continue;
    }
    const step = nums[2] ?? 1;
    if (step === 0) return `'${clip(token)}': a slice step cannot be zero`;
    parts.push({ start: nums[0], stop: nums[1], step, single: false });
  }
  return parts;
}

/** Python's slice.indices(n): the concrete start, stop and step of a part over `n` items. */
function partRange(p: Part, n: number): { start: number; stop: number; step: number } {
  if (p.single) {
    const i = p.start! < 0 ? p.start! + n : p.start!;
    return i >= 0 && i < n ? { start: i, stop: i + 1, step: 1 } : { start: 0, stop: 0, step: 1 };
  }
  const clamp = (v: number | undefined, dflt: number, lo: number, hi: number) =>
    v === undefined ? dflt : Math.min(Math.max(v < 0 ? v + n : v, lo), hi);
  return p.step > 0
    ? { start: clamp(p.start, 0, 0, n), stop: clamp(p.stop, n, 0, n), step: p.step }
    : { start: clamp(p.start, n - 1, -1, n - 1), stop: clamp(p.stop, -1, -1, n - 1), step: p.step };
}

/**
 * Which of the first `limit` of `n` items the axis selects (1 = selected). Step-1 parts are
 * marked through a difference array, so each costs O(1) whatever its length: the cost is
 * the number of parts plus `limit` plus the items of stepped parts.
 */
export function axisMask(axis: Axis, n: number, limit = n): Uint8Array {
  const m = Math.max(0, Math.min(n, limit));
  const mask = new Uint8Array(m);
  const diff = new Int32Array(m + 1);
  for (const p of axis) {
    const { start, stop, step } = partRange(p, n);
    if (step === 1 || step === -1) {
      // [lo, hi) in ascending order, cut to the limit.
      const lo = step === 1 ? start : stop + 1;
      const hi = Math.min(step === 1 ? stop : start + 1, m);
      if (lo < hi) {
        diff[lo]!++;
        diff[hi]!--;
      }
    } else if (step > 0) {
      for (let i = start; i < stop && i < m; i += step) mask[i] = 1;
    } else {
      for (let i = start; i > stop; i += step) if (i < m) mask[i] = 1;
    }
  }
  let run = 0;
  for (let i = 0; i < m; i++) {
    run += diff[i]!;
    if (run > 0) mask[i] = 1;
  }
  return mask;
}

/** Whether the axis selects item `i` of `n` (one item: no mask needed). */
export function axisHas(axis: Axis, n: number, i: number): boolean {
  for (const p of axis) {
    const { start, stop, step } = partRange(p, n);
    if (
      step > 0
        ? i >= start && i < stop && (i - start) % step === 0
        : i <= start && i > stop && (start - i) % -step === 0
    )
      return true;
  }
  return false;
}

/** Whether the axis selects every item of [from, to) of `n` (a series' every data row, say). */
export function axisCovers(axis: Axis, n: number, from: number, to: number): boolean {
  if (from >= to) return false;
  const spans: [number, number][] = [];
  for (const p of axis) {
    const { start, stop, step } = partRange(p, n);
    if (step === 1 && start < stop) spans.push([start, stop]);
    else if (step === -1 && start > stop) spans.push([stop + 1, start + 1]);
    else if (start >= 0 && start < n && (step > 0 ? start < stop : start > stop)) spans.push([start, start + 1]);
  }
  spans.sort((a, b) => a[0] - b[0]);
  let reach = from;
  for (const [a, b] of spans) {
    if (a > reach) break;
    reach = Math.max(reach, b);
    if (reach >= to) return true;
  }
  return false;
}

/** The words of one line, without its `--` comment. */
function words(line: string): string[] {
  const out: string[] = [];
  for (const w of line.split(/[ \t]+/)) {
    if (w.startsWith('--')) break;
    if (w) out.push(w);
  }
  return out;
}

/**
 * The instruction lines of an entry (blank and comment-only lines skipped), or the first
 * line that is not one. `minArgs` words must follow the two selectors. At most
 * MAX_INSTRUCTIONS lines are read: a longer entry is an error (the caller decides whether
 * to refuse it on write or draw the first ones).
 */
export function parseInstructions(
  text: string,
  minArgs = 1,
):
  | { instructions: Instruction[]; error?: undefined; line?: undefined }
  | { instructions: Instruction[]; error: string; line: number } {
  const instructions: Instruction[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  for (let k = 0; k < lines.length; k++) {
    const line = k + 1;
    const w = words(lines[k]!);
    if (w.length === 0) continue;
    if (instructions.length === MAX_INSTRUCTIONS)
      return { instructions, error: `line ${line}: more than ${MAX_INSTRUCTIONS} instructions`, line };
    if (w.length < 2 + minArgs)
      return {
        instructions,
        error: `line ${line}: expected <rows> <columns> and ${minArgs === 1 ? 'an instruction' : `${minArgs} words`}, found '${clip(lines[k]!.trim())}'`,
        line,
      };
    const rows = parseAxis(w[0]!);
    if (typeof rows === 'string') return { instructions, error: `line ${line}: rows ${rows}`, line };
    const cols = parseAxis(w[1]!);
    if (typeof cols === 'string') return { instructions, error: `line ${line}: columns ${cols}`, line };
    instructions.push({ line, rows, cols, args: w.slice(2) });
  }
  return { instructions };
}

/** A piece of user text short enough to quote in an error. */
export function clip(s: string, max = 40): string {
  const cps = Array.from(s.slice(0, max * 2));
  return cps.length > max ? cps.slice(0, max).join('') + '…' : cps.join('');
}
