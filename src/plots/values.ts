/**
 * What a cell of the data means when drawn: a number (as pandas writes floats and ints), an
 * ISO date or date-time (as pandas writes a DatetimeIndex or PeriodIndex), or text. Cells
 * are read without regular expressions that could backtrack over a long cell.
 */

/** The number a cell holds, or NaN (empty cells, text, `nan`, `inf`, hexadecimal and other forms pandas never writes). */
export function toNumber(cell: string): number {
  const s = cell.length > 64 ? '' : cell.trim();
  if (!s) return NaN;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    // digits + - . e E only: Number() alone would also read 0x1f, 0b1, Infinity and '' (as 0).
    if (!((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46 || c === 101 || c === 69)) return NaN;
  }
  const v = Number(s);
  return Number.isFinite(v) ? v : NaN;
}

const ISO =
  /^(\d{4})-(\d{2})(?:-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/**
 * The time (ms since the epoch, UTC) of an ISO date (`2024-01-31`), month (`2024-01`, a
 * monthly PeriodIndex) or date-time (`2024-01-31 12:00:00`, `...T12:00:00.5+01:00`), or NaN.
 * A date-time without an offset is read as UTC: the drawing shows the time as written.
 */
export function toTime(cell: string): number {
  if (cell.length > 40) return NaN;
  // The common case, a plain date (`2024-01-31`), read from its character codes.
  if (cell.length === 10 && cell[4] === '-' && cell[7] === '-') {
    const d = (i: number) => cell.charCodeAt(i) - 48;
    let ok = true;
    for (const i of [0, 1, 2, 3, 5, 6, 8, 9]) if (d(i) < 0 || d(i) > 9) ok = false;
    const mo = d(5) * 10 + d(6);
    const day = d(8) * 10 + d(9);
    if (ok && mo >= 1 && mo <= 12 && day >= 1 && day <= 31)
      return Date.UTC(d(0) * 1000 + d(1) * 100 + d(2) * 10 + d(3), mo - 1, day);
    if (ok) return NaN;
  }
  const m = ISO.exec(cell.trim());
  if (!m) return NaN;
  const [y, mo, d = 1, h = 0, mi = 0, s = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((v) =>
    v === undefined ? undefined : Number(v),
  ) as number[];
  if (mo! < 1 || mo! > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return NaN;
  const ms = m[7] ? Math.round(Number(`0.${m[7]}`) * 1000) : 0;
  let offset = 0;
  const z = m[8];
  if (z && z !== 'Z') {
    const digits = z.replace(':', '');
    offset = (z[0] === '-' ? -1 : 1) * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5) || 0));
  }
  const t = Date.UTC(y!, mo! - 1, d, h, mi, s, ms) - offset * 60_000;
  return Number.isFinite(t) ? t : NaN;
}
