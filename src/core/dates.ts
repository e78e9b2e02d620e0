/**
 * Date formats the platform's existing clients print (its python library and command line): listings and
 * GraphQL dates in RFC 2822 form with a literal ` UTC` zone, e.g.
 * `Fri, 29 Nov 2024 09:39:33 UTC`. Stored times stay ISO 8601.
 */

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const DAY_MS = 86_400_000;

/**
 * An ISO 8601 instant as RFC 2822 in UTC with the zone written ` UTC`
 * (`2024-11-29T09:39:33.512Z` → `Fri, 29 Nov 2024 09:39:33 UTC`). Pure; a value that is
 * not a date throws a RangeError.
 *
 * Stored times are in toISOString's form; those are read straight from the text (a listing
 * formats two per item, and parsing each into a Date and printing it back was most of a
 * 1,000-item GraphQL listing's date work). Any other form goes through a Date, as before.
 */
export function rfc2822Utc(iso: string): string {
  return canonicalRfc2822(iso) ?? viaDate(iso);
}

function viaDate(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) throw new RangeError(`not a date: '${iso}'`);
  // toUTCString is `Fri, 29 Nov 2024 09:39:33 GMT` (day padded, English names, 24 h clock).
  return d.toUTCString().replace(/ GMT$/, ' UTC');
}

/** The digits of `s` from `at` to `end` as a number, or -1 when one is not a digit. */
function digits(s: string, at: number, end: number): number {
  let n = 0;
  for (let i = at; i < end; i++) {
    const c = s.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const daysIn = (y: number, m: number) =>
  m === 2 ? (isLeap(y) ? 29 : 28) : m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;

/**
 * `YYYY-MM-DDTHH:MM:SS[.f|.ff|.fff]Z` (years 1000-9999, every field in range) formatted
 * without a Date; null for any other text (a Date reads it: rollovers, offsets, errors).
 */
function canonicalRfc2822(s: string): string | null {
  const n = s.length;
  if (n !== 20 && (n < 22 || n > 24)) return null;
  if (s[4] !== '-' || s[7] !== '-' || s[10] !== 'T' || s[13] !== ':' || s[16] !== ':' || s[n - 1] !== 'Z') return null;
  if (n > 20 && (s[19] !== '.' || digits(s, 20, n - 1) < 0)) return null;
  const y = digits(s, 0, 4);
  const m = digits(s, 5, 7);
  const d = digits(s, 8, 10);
  const h = digits(s, 11, 13);
  const min = digits(s, 14, 16);
  const sec = digits(s, 17, 19);
  if (y < 1000 || m < 1 || m > 12 || d < 1 || d > daysIn(y, m) || h < 0 || h > 23 || min < 0 || min > 59) return null;
  if (sec < 0 || sec > 59) return null;
  const weekday = (Date.UTC(y, m - 1, d) / DAY_MS + 4) % 7; // 1970-01-01 was a Thursday
  return `${DAYS[weekday < 0 ? weekday + 7 : weekday]}, ${s.slice(8, 10)} ${MONTHS[m - 1]} ${s.slice(0, 4)} ${s.slice(11, 19)} UTC`;
}
