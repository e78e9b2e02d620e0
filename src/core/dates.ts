/**
 * Date formats the platform's existing clients print (its python library and command line): listings and
 * GraphQL dates in RFC 2822 form with a literal ` UTC` zone, e.g.
 * `Fri, 29 Nov 2024 09:39:33 UTC`. Stored times stay ISO 8601.
 */

/**
 * An ISO 8601 instant as RFC 2822 in UTC with the zone written ` UTC`
 * (`2024-11-29T09:39:33.512Z` → `Fri, 29 Nov 2024 09:39:33 UTC`). Pure; a value that is
 * not a date throws a RangeError.
 */
export function rfc2822Utc(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) throw new RangeError(`not a date: '${iso}'`);
  // toUTCString is `Fri, 29 Nov 2024 09:39:33 GMT` (day padded, English names, 24 h clock).
  return d.toUTCString().replace(/ GMT$/, ' UTC');
}
