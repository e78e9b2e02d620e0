/**
 * A plot's colour instructions (`config/colors/colors`), as the clients' StaticColor and
 * DynamicColor write them:
 *
 *     <rows> <columns> <bg|fg> <color> [<dark color>]        static:  `: 1 bg blue-500`
 *     <rows> <columns> <bg|fg> <colors>(<domain>)^<scale>     dynamic: `1: 1: bg red,green(_,_)^lin`
 *
 * plus a plain list, one `<color> [<dark color>]` per line, for the series in order (what
 * `ix`, "colours by series index", reads most simply). Both shapes are told apart by their
 * first word (a selector or a colour), so a file means the same whether `config/colors/type`
 * says `ix` or `clr`: novem's documentation and this platform's describe those two words
 * differently, and a drawing that changed with the word would surprise either reader.
 *
 * Dynamic colours: two or three stops (`bad,neutral,good`), an optional domain with one
 * value per stop where `_` is taken from the data (the smallest and largest values the
 * selector covers; a `_` middle is halfway between them), and a scale: `lin` (default),
 * `pow` (squared), `exp` ((e^4t − 1)/(e^4 − 1)) or `log` (ln(1 + 9t)/ln 10), applied within
 * each segment. A dark colour may follow with its own stops.
 *
 * Drawing never fails on this file: a line that does not read, or names an unknown colour,
 * is skipped. `colorsProblem` is the strict reading for a 400 on write.
 */
import { namedColor, type Shade } from './palette';
import { clip, parseInstructions, MAX_INSTRUCTIONS, type Axis } from './selector';

type Scale = 'lin' | 'pow' | 'exp' | 'log';

export type Paint =
  | { kind: 'static'; shade: Shade }
  | { kind: 'dynamic'; light: string[]; dark: string[]; domain: (number | undefined)[]; scale: Scale };

interface ColorRule {
  line: number;
  rows: Axis;
  cols: Axis;
  plane: 'bg' | 'fg';
  paint: Paint;
}

export interface ColorConfig {
  /** Selector lines, in order (a later one wins where two select the same cell). */
  rules: ColorRule[];
  /** Plain colour lines: the colour of series 0, 1, ... */
  series: Shade[];
}

const SCALES: readonly string[] = ['lin', 'pow', 'exp', 'log'];

/** `red,green`, `bad,neutral,good(_,0,_)^lin`, `red-100,red-900(0,100)`: the stops, domain and scale, or why not. */
function parseDynamic(
  text: string,
): { colors: Shade[]; domain: (number | undefined)[]; scale: Scale } | string | undefined {
  const m = /^([^()^]+)(?:\(([^()]*)\))?(?:\^([a-z]+))?$/i.exec(text);
  if (!m) return undefined;
  const names = m[1]!.split(',');
  if (names.length < 2) return undefined;
  if (names.length > 3) return `'${clip(text)}': a dynamic colour has two or three stops`;
  const colors: Shade[] = [];
  for (const n of names) {
    const c = namedColor(n);
    if (!c) return `unknown colour '${clip(n)}'`;
    colors.push(c);
  }
  let domain: (number | undefined)[] = names.map(() => undefined);
  if (m[2] !== undefined) {
    const vals = m[2].split(',').map((v) => v.trim());
    if (vals.length !== names.length)
      return `'${clip(text)}': the domain has ${vals.length} values for ${names.length} colours`;
    domain = [];
    for (const v of vals) {
      if (v === '_') domain.push(undefined);
      else if (v !== '' && Number.isFinite(Number(v))) domain.push(Number(v));
      else return `'${clip(text)}': '${clip(v)}' is neither a number nor _`;
    }
  }
  const scale = (m[3] ?? 'lin').toLowerCase();
  if (!SCALES.includes(scale)) return `'${clip(text)}': the scale is one of ${SCALES.join(', ')}`;
  return { colors, domain, scale: scale as Scale };
}

/** One colour word (static or dynamic) and an optional dark one: the paint, or why not. */
function parsePaint(color: string, dark: string | undefined): Paint | string {
  const dyn = parseDynamic(color);
  if (typeof dyn === 'string') return dyn;
  if (dyn) {
    let darkStops = dyn.colors.map((c) => c.dark);
    if (dark !== undefined) {
      const d = parseDynamic(dark);
      if (typeof d === 'string') return d;
      if (!d || d.colors.length !== dyn.colors.length)
        return `the dark colour '${clip(dark)}' needs ${dyn.colors.length} stops like '${clip(color)}'`;
      darkStops = d.colors.map((c) => c.light);
    }
    return {
      kind: 'dynamic',
      light: dyn.colors.map((c) => c.light),
      dark: darkStops,
      domain: dyn.domain,
      scale: dyn.scale,
    };
  }
  const shade = namedColor(color);
  if (!shade) return `unknown colour '${clip(color)}'`;
  if (dark === undefined) return { kind: 'static', shade };
  const d = namedColor(dark);
  if (!d) return `unknown dark colour '${clip(dark)}'`;
  return { kind: 'static', shade: { light: shade.light, dark: d.light } };
}

const isSelectorWord = (w: string) => /^[-+\d:,]+$/.test(w);

/** Reads the file: every line that reads, and the first problem met (undefined when none). */
function readColors(text: string): { config: ColorConfig; problem?: string } {
  const config: ColorConfig = { rules: [], series: [] };
  let problem: string | undefined;
  const note = (p: string) => (problem ??= p);
  // Plain colour lines first (they carry no selector); the rest are selector instructions.
  const selectorLines: string[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  let counted = 0;
  for (let k = 0; k < lines.length; k++) {
    const words = lines[k]!.split('--')[0]!
      .trim()
      .split(/[ \t]+/)
      .filter(Boolean);
    selectorLines.push('');
    if (words.length === 0) continue;
    if (++counted > MAX_INSTRUCTIONS) {
      note(`line ${k + 1}: more than ${MAX_INSTRUCTIONS} instructions`);
      break;
    }
    if (isSelectorWord(words[0]!)) {
      selectorLines[k] = lines[k]!;
      continue;
    }
    if (words.length > 2) {
      note(`line ${k + 1}: expected <rows> <columns> <bg|fg> <color> [<dark color>], or <color> [<dark color>]`);
      continue;
    }
    const paint = parsePaint(words[0]!, words[1]);
    if (typeof paint === 'string') note(`line ${k + 1}: ${paint}`);
    else if (paint.kind === 'static') config.series.push(paint.shade);
    else note(`line ${k + 1}: a series colour is one colour, not a range`);
  }
  // The selector lines keep their line numbers (the others are blanked out above).
  const parsed = parseInstructions(selectorLines.join('\n'), 1);
  for (const ins of parsed.instructions) {
    let [plane, color, dark, extra] = ins.args as [string, string | undefined, string | undefined, string | undefined];
    if (plane !== 'bg' && plane !== 'fg') {
      // The client writes `bg` when given another plane: a line without one reads as bg.
      [extra, dark, color, plane] = [dark, color, plane, 'bg'];
    }
    if (color === undefined || extra !== undefined) {
      note(`line ${ins.line}: expected <rows> <columns> <bg|fg> <color> [<dark color>]`);
      continue;
    }
    const paint = parsePaint(color, dark);
    if (typeof paint === 'string') {
      note(`line ${ins.line}: ${paint}`);
      continue;
    }
    config.rules.push({ line: ins.line, rows: ins.rows, cols: ins.cols, plane: plane as 'bg' | 'fg', paint });
  }
  if (parsed.error !== undefined) note(parsed.error);
  return { config, problem };
}

/** The colour instructions that read (lenient: drawing never fails on colours). */
export function parseColors(text: string): ColorConfig {
  return readColors(text).config;
}

/** Why `config/colors/colors` cannot be stored (the first bad line), or undefined. */
export function colorsProblem(text: string): string | undefined {
  return readColors(text).problem;
}

/** Why `config/colors/type` is not a colour type, or undefined. */
export function colorTypeProblem(text: string): string | undefined {
  const t = text.trim();
  return ['', 'ix', 'clr'].includes(t) ? undefined : `'${clip(t)}' is not a colour type: use ix or clr`;
}

// ------------------------------------------------------------------ dynamic colours

const ease: Record<Scale, (t: number) => number> = {
  lin: (t) => t,
  pow: (t) => t * t,
  exp: (t) => (Math.exp(4 * t) - 1) / (Math.exp(4) - 1),
  log: (t) => Math.log1p(9 * t) / Math.LN10,
};

function mix(a: string, b: string, t: number): string {
  if (a === 'none' || b === 'none') return t < 0.5 ? a : b;
  const pa = parseInt(a.slice(1), 16);
  const pb = parseInt(b.slice(1), 16);
  let out = 0;
  for (const shift of [16, 8, 0]) {
    const ca = (pa >> shift) & 255;
    const cb = (pb >> shift) & 255;
    out |= Math.round(ca + (cb - ca) * t) << shift;
  }
  return `#${out.toString(16).padStart(6, '0')}`;
}

/** The domain of a dynamic paint over data whose extent is [min, max]: one number per stop, ascending. */
export function resolveDomain(domain: (number | undefined)[], min: number, max: number): number[] {
  const lo = Number.isFinite(min) ? min : 0;
  const hi = Number.isFinite(max) ? max : lo;
  const first = domain[0] ?? lo;
  const last = domain[domain.length - 1] ?? hi;
  return domain.length === 3 ? [first, domain[1] ?? (first + last) / 2, last] : [first, last];
}

/** The colour of `value` under a paint (a static paint ignores the value), given the resolved domain. */
export function paintShade(paint: Paint, value: number, domain: number[]): Shade {
  if (paint.kind === 'static') return paint.shade;
  const { light, dark, scale } = paint;
  if (!Number.isFinite(value)) return { light: light[0]!, dark: dark[0]! };
  // A domain written high to low reads as the same stops reversed.
  let d = domain;
  let l = light;
  let k = dark;
  if (d[0]! > d[d.length - 1]!) {
    d = [...d].reverse();
    l = [...l].reverse();
    k = [...k].reverse();
  }
  let seg = 0;
  while (seg < d.length - 2 && value > d[seg + 1]!) seg++;
  const a = d[seg]!;
  const b = d[seg + 1]!;
  const t = b === a ? 0.5 : Math.min(1, Math.max(0, (value - a) / (b - a)));
  const e = ease[scale](t);
  return { light: mix(l[seg]!, l[seg + 1]!, e), dark: mix(k[seg]!, k[seg + 1]!, e) };
}
