/**
 * Document variables: `vars/<var>/{value,type,format,about,threshold}` text entries of a
 * document. Rendering imports `readVars` and `formatVar` to show
 * `{/u/<user>/d/<doc>/v/<var>}` references as formatted values. Formatting and validation
 * are pure; `readVars` is the only I/O.
 *
 * - number:   d3-format (Python-style format spec: `,.2f`, `.1%`, `.3s`); minus is U+2212.
 * - relative: a number shown with its sign and an arrow (↑ positive, ↓ negative); its
 *             colour band comes from `threshold` (comma-separated numbers, default 0):
 *             above the highest is up (green), below the lowest is down (red), else none.
 * - date:     an ISO date or timestamp, formatted with a strftime-style spec (`%d %b %Y`).
 * - text:     shown as written.
 */
import { format as d3Format, formatSpecifier } from 'd3-format';
import { utcFormat } from 'd3-time-format';
import type { Db } from '../core/context';
import { readEntries } from '../core/entries';

export interface DocVar {
  name: string;
  value: string;
  type: 'number' | 'relative' | 'date' | 'text';
  format: string;
  about: string;
  threshold: string;
}

export interface FormattedVar {
  /** The formatted value (the `txt` render). */
  text: string;
  /** Colour band: green up, red down, or none. */
  band: 'up' | 'down' | 'none';
  /** CSS colour of the band ('' for none). */
  color: string;
}

const VAR_TYPES = ['number', 'relative', 'date', 'text'] as const;
export const VAR_ATTRS = ['value', 'type', 'format', 'about', 'threshold'] as const;
export type VarAttr = (typeof VAR_ATTRS)[number];
const isVarAttr = (s: string): s is VarAttr => (VAR_ATTRS as readonly string[]).includes(s);

/** Variable names: lowercase letters, digits, `-`, `_`, at most 50 characters. */
export const VAR_NAME = /^[a-z0-9_-]{1,50}$/;

export const VAR_DEFAULTS: Omit<DocVar, 'name'> = { value: '', type: 'number', format: '', about: '', threshold: '' };

const BAND_COLORS = { up: '#1a7f37', down: '#cf222e', none: '' } as const;
const ANSI = { up: '\u001b[32m', down: '\u001b[31m', none: '' } as const;
const ANSI_RESET = '\u001b[0m';
const MINUS = '\u2212';

const NUMBER_RE = /^[+\-\u2212]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const DATE_RE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
/** strftime directives d3-time-format understands (with an optional padding modifier). */
const DATE_DIRECTIVE = /%([-_0]?)([aAbBcdefgGHIjLmMpqQsSuUVwWxXyYZ%])/g;

/** Parses a variable's numeric value (`−` accepted as minus); null when it is not a number. */
function parseNumber(value: string): number | null {
  const v = value.trim();
  if (!NUMBER_RE.test(v)) return null;
  const n = Number(v.replace(MINUS, '-'));
  return Number.isFinite(n) ? n : null;
}

function parseDate(value: string): Date | null {
  const v = value.trim();
  if (!DATE_RE.test(v)) return null;
  const d = new Date(v.length === 10 ? `${v}T00:00:00Z` : v.replace(' ', 'T'));
  return Number.isNaN(d.getTime()) ? null : d;
}

function parseThreshold(value: string): number[] | null {
  if (value.trim() === '') return [];
  const parts = value.split(',').map((p) => parseNumber(p));
  return parts.every((p): p is number => p !== null) ? parts : null;
}

/**
 * Widest padding and most digits a number format may ask for: `150000000d` is 10 bytes
 * and would print 150 MB. Writes above them are refused; formats stored before the rule
 * are clamped when they format.
 */
export const MAX_FORMAT_WIDTH = 64;
export const MAX_FORMAT_PRECISION = 20;

function numberSpec(spec: string): ReturnType<typeof formatSpecifier> | null {
  try {
    return formatSpecifier(spec);
  } catch {
    return null;
  }
}

/** Why a number format's width or precision is over its bound (undefined when within). */
function numberSpecBoundProblem(spec: string): string | undefined {
  const s = numberSpec(spec);
  if (s?.width !== undefined && s.width > MAX_FORMAT_WIDTH)
    return `the format's width is at most ${MAX_FORMAT_WIDTH} (got ${s.width})`;
  if (s?.precision !== undefined && s.precision > MAX_FORMAT_PRECISION)
    return `the format's precision is at most ${MAX_FORMAT_PRECISION} (got ${s.precision})`;
  return undefined;
}

function isDateSpec(spec: string): boolean {
  return spec.includes('%') && spec.replace(DATE_DIRECTIVE, '').indexOf('%') === -1;
}

/** Why `format` does not suit `type` (undefined when it does). */
function formatProblem(type: DocVar['type'], format: string): string | undefined {
  if (format === '') return undefined;
  if ((type === 'number' || type === 'relative') && !numberSpec(format)) {
    return `'${format}' is not a Python-style number format (e.g. ',.2f', '+.1%', '.3s')`;
  }
  if (type === 'number' || type === 'relative') return numberSpecBoundProblem(format);
  if (type === 'date' && !isDateSpec(format))
    return `'${format}' is not a date format (strftime directives such as '%Y-%m-%d', '%d %b %Y')`;
  return undefined;
}

function valueProblem(type: DocVar['type'], value: string): string | undefined {
  if (value === '') return undefined;
  if ((type === 'number' || type === 'relative') && parseNumber(value) === null)
    return `'${value}' is not a number (the variable's type is ${type})`;
  if (type === 'date' && parseDate(value) === null)
    return `'${value}' is not an ISO date such as 2024-03-31 or 2024-03-31T12:00:00Z (the variable's type is date)`;
  return undefined;
}

/**
 * Validates writing `attr` = `value` to a variable currently `current`; a message for a
 * 400, or undefined. A variable stays coherent: its value and format always suit its type.
 */
export function varAttrProblem(attr: VarAttr, value: string, current: DocVar): string | undefined {
  const chars = [...value].length;
  switch (attr) {
    case 'value':
      if (chars > 50) return `value is at most 50 characters (got ${chars})`;
      return valueProblem(current.type, value);
    case 'type': {
      if (!(VAR_TYPES as readonly string[]).includes(value))
        return `type must be one of ${VAR_TYPES.join(', ')}; got '${value}'`;
      const type = value as DocVar['type'];
      const v = valueProblem(type, current.value);
      if (v)
        return `${v.replace(/ \(the variable's type is \w+\)$/, '')}: change or clear the value before setting type ${type}`;
      const f = formatProblem(type, current.format);
      if (f)
        return `the format ${f.replace(/^'[^']*' is /, 'is ')}: change or clear the format before setting type ${type}`;
      return undefined;
    }
    case 'format':
      if (chars > 50) return `format is at most 50 characters (got ${chars})`;
      return formatProblem(current.type, value);
    case 'about':
      if (chars > 250) return `about is at most 250 characters (got ${chars})`;
      return undefined;
    case 'threshold':
      if (chars > 250) return `threshold is at most 250 characters (got ${chars})`;
      if (parseThreshold(value) === null)
        return `threshold must be comma-separated numbers (e.g. '-5,5'); got '${value}'`;
      return undefined;
  }
}

/** The colour band of a relative value against its thresholds (default 0). */
export function bandOf(n: number, threshold: string): FormattedVar['band'] {
  const t = parseThreshold(threshold);
  const bounds = t && t.length ? t : [0];
  if (n > Math.max(...bounds)) return 'up';
  if (n < Math.min(...bounds)) return 'down';
  return 'none';
}

function formatNumber(n: number, spec: string, forceSign: boolean): string {
  const s = formatSpecifier(spec);
  if (forceSign) s.sign = '+';
  // Clamped, never trusted: a format stored before the bounds still prints a short text.
  if (s.width !== undefined) s.width = Math.min(s.width, MAX_FORMAT_WIDTH);
  if (s.precision !== undefined) s.precision = Math.min(s.precision, MAX_FORMAT_PRECISION);
  return d3Format(s.toString())(n);
}

/** Formats a variable for display (the `txt` render, and references in content). Never throws. */
export function formatVar(v: DocVar): FormattedVar {
  const plain: FormattedVar = { text: v.value, band: 'none', color: '' };
  try {
    if (v.type === 'number') {
      const n = parseNumber(v.value);
      return n === null ? plain : { ...plain, text: formatNumber(n, v.format, false) };
    }
    if (v.type === 'relative') {
      const n = parseNumber(v.value);
      if (n === null) return plain;
      const arrow = n > 0 ? '↑ ' : n < 0 ? '↓ ' : '';
      const band = bandOf(n, v.threshold);
      return { text: arrow + formatNumber(n, v.format, true), band, color: BAND_COLORS[band] };
    }
    if (v.type === 'date') {
      const d = parseDate(v.value);
      return d === null || !isDateSpec(v.format) ? plain : { ...plain, text: utcFormat(v.format)(d) };
    }
  } catch {
    // a format that no longer suits the value: show the value as written
  }
  return plain;
}

/** The `ansi` render: the formatted value in the colour of its band. */
export function ansiVar(f: FormattedVar): string {
  return f.band === 'none' ? f.text : `${ANSI[f.band]}${f.text}${ANSI_RESET}`;
}

/** Entry path of a variable's attribute. */
export const varPath = (name: string, attr: VarAttr) => `vars/${name}/${attr}`;

/** Folds stored `vars/<var>/<attr>` entries into variables (sorted by name). Pure. */
export function varsFromEntries(stored: Map<string, string>): DocVar[] {
  const byName = new Map<string, DocVar>();
  for (const [path, value] of stored) {
    const m = /^vars\/([^/]+)\/([a-z]+)$/.exec(path);
    const attr = m?.[2];
    if (!m || !attr || !isVarAttr(attr)) continue;
    const name = m[1]!;
    const v = byName.get(name) ?? { name, ...VAR_DEFAULTS };
    // A stored type was checked (varAttrProblem) when it was written.
    if (attr === 'type') v.type = value as DocVar['type'];
    else v[attr] = value;
    byName.set(name, v);
  }
  return [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Every variable of a document. */
export async function readVars(env: Env, db: Db, resourceId: number): Promise<DocVar[]> {
  return varsFromEntries(await readEntries(env, db, resourceId, 'vars/'));
}
