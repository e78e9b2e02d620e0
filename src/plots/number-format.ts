/**
 * Cell formats as novem's documentation gives them: Python's format mini-language
 * (`,.2f`, `.1%`, `>10,.0f`, `+.3e`), drawn with d3-format (modelled on it) with Python's
 * output where the two differ (a hyphen minus, two-digit exponents, `g` without trailing
 * zeros, `_` grouping, upper-case `E F G`), and novem's two extensions:
 *
 * - `Ns` (or `.Ns`): the number with an SI prefix (k, M, G, T, P, E; m, µ, n, p below 1)
 *   and N digits after the point: `1s` writes 1234567 as `1.2M`. The documentation calls
 *   it scientific notation with a precision and gives no example; the precision read as
 *   decimals is what the money format does too.
 * - `[currency][.N]m[currency]`: money, with the finance suffixes K, M, B, T and N decimals
 *   (1 when not given): `$.3m` writes 1234567 as `$1.235M`, `.2m€` as `1.23M€`.
 *
 * A format with a strftime directive (`%Y-%m-%d`, `%b %Y`) formats dates (ISO cells) instead.
 * A cell that is not what the format is for is shown as written.
 */
import { formatLocale } from 'd3-format';
import { utcFormat } from 'd3-time-format';
import { toNumber, toTime } from './values';

/** d3's English number locale with an ASCII hyphen minus (d3 writes U+2212), as Python does; charts label with it too. */
export const locale = formatLocale({
  decimal: '.',
  thousands: ',',
  grouping: [3],
  currency: ['$', ''],
  minus: '-',
});

export type CellFormat = (cell: string) => string;

const PY = /^(?:(.)?([<>=^]))?([-+ ])?(z)?(#)?(0)?(\d{1,3})?([,_])?(?:\.(\d{1,2}))?([bcdeEfFgGnosxX%])?$/;
const SI = /^\.?(\d{1,2})?s$/;
const MONEY = /^([^\d.]{0,3})\.?(\d{1,2})?m([^\d.]{0,3})$/;
const DATE = /%[a-zA-Z]/;

const SI_PREFIX: [number, string][] = [
  [1e18, 'E'],
  [1e15, 'P'],
  [1e12, 'T'],
  [1e9, 'G'],
  [1e6, 'M'],
  [1e3, 'k'],
  [1, ''],
  [1e-3, 'm'],
  [1e-6, 'µ'],
  [1e-9, 'n'],
  [1e-12, 'p'],
];
const MONEY_SUFFIX: [number, string][] = [
  [1e12, 'T'],
  [1e9, 'B'],
  [1e6, 'M'],
  [1e3, 'K'],
  [1, ''],
];

function scaled(v: number, digits: number, table: [number, string][]): string {
  const a = Math.abs(v);
  let i = a === 0 ? table.findIndex(([p]) => p === 1) : table.findIndex(([p]) => a >= p);
  if (i < 0) i = table.length - 1;
  // 999.96 at one decimal rounds to 1000.0: written 1.0k instead.
  if (i > 0 && Math.abs(Number((v / table[i]![0]).toFixed(digits))) >= 1000) i--;
  return (v / table[i]![0]).toFixed(digits) + table[i]![1];
}

/** Python's exponent has two digits at least (`1.0e+03`); d3 writes `1.0e+3`. */
const twoDigitExponent = (s: string) => s.replace(/e([+-])(\d)(?!\d)/, 'e$10$2');

/** A formatter for `spec`, or why the spec is not one (for a 400 on write). */
export function cellFormat(spec: string): CellFormat | string {
  if (spec.length > 64) return 'a format is at most 64 characters';
  if (DATE.test(spec)) {
    const f = utcFormat(spec);
    return (cell) => {
      const t = toTime(cell);
      return Number.isNaN(t) ? cell : f(new Date(t));
    };
  }
  const si = SI.exec(spec);
  if (si) {
    const digits = Number(si[1] ?? 1);
    return (cell) => {
      const v = toNumber(cell);
      return Number.isNaN(v) ? cell : scaled(v, digits, SI_PREFIX);
    };
  }
  const money = MONEY.exec(spec);
  if (money) {
    const digits = Number(money[2] ?? 1);
    const [pre, post] = [money[1]!, money[3]!];
    return (cell) => {
      const v = toNumber(cell);
      if (Number.isNaN(v)) return cell;
      const s = scaled(Math.abs(v), digits, MONEY_SUFFIX);
      return (v < 0 ? '-' : '') + pre + s + post;
    };
  }
  const m = PY.exec(spec);
  if (!m) return `'${spec}' is not a format (Python's format mini-language, e.g. ,.2f or .1%)`;
  const [, fill, align, sign, , alt, zero, width, group, precision, type] = m;
  let t = type ?? '';
  const upper = t === 'E' || t === 'F' || t === 'G';
  if (upper) t = t.toLowerCase();
  // Python's g (and no type with a precision) drops trailing zeros unless # asks to keep them: d3's ~.
  const trim = (t === 'g' || t === 'n' || (t === '' && precision !== undefined)) && !alt ? '~' : '';
  if (t === 'n') t = 'g';
  if (t === '' && precision !== undefined) t = 'g';
  const d3spec =
    (align ? (fill ?? '') + align : '') +
    (sign ?? '') +
    (alt ? '#' : '') +
    (zero ? '0' : '') +
    (width ?? '') +
    (group || type === 'n' ? ',' : '') +
    (precision !== undefined ? `.${precision}` : '') +
    trim +
    t;
  let f: (n: number) => string;
  try {
    f = locale.format(d3spec);
  } catch {
    return `'${spec}' is not a format (Python's format mini-language, e.g. ,.2f or .1%)`;
  }
  return (cell) => {
    const v = toNumber(cell);
    if (Number.isNaN(v)) return cell;
    let s = f(v);
    if (t === 'e' || t === 'g' || t === '') s = twoDigitExponent(s);
    if (group === '_') s = s.replace(/,/g, '_');
    return upper ? s.toUpperCase() : s;
  };
}
