/**
 * What is built at its first use, and only once: the zod schemas of the routes. Built at
 * module load, the schemas of every route cost every isolate's startup; built with the
 * route table, its first request. A route's schemas are needed only to validate its JSON
 * body (that route's first request) and by /v1/openapi.json, so each is declared as a
 * function (route-spec.ts) and built here the first time one of those asks.
 */

const builtBy = new WeakMap<() => unknown, unknown>();

/** What `make` builds, built by its first call (the same value for every later call). */
export function built<T>(make: () => T): T {
  if (builtBy.has(make)) return builtBy.get(make) as T;
  const value = make();
  builtBy.set(make, value);
  return value;
}

/** `make` as a function that builds its value once: a schema that several routes or schemas share. */
export const once =
  <T>(make: () => T): (() => T) =>
  () =>
    built(make);
