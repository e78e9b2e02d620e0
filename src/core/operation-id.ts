/**
 * OperationIds of the OpenAPI document, derived from method and path alone, so that a
 * route gets one without declaring it and SDK generators name their methods the same way
 * on every build (`GET /v1/vis/docs/:doc/content` → `getDocContent`).
 *
 * The short form: the method, then the path's words, leaving out a leading `v1` and the
 * kind namespaces (`vis`, `code`) in front of a collection; a plural collection before its
 * parameter becomes its singular (`groups/:group` → `Group`), another word keeps the
 * parameter's name too (`code/:file` → `CodeFile`), a one-letter segment is named by its
 * parameter alone (`/v1/u/:user/d/:doc` → `UserDoc`), `users/:owner` (another user's
 * resources) is `Owner`, and a parameter after a parameter adds its name
 * (`roles/:role/:user` → `RoleUser`).
 *
 * Collisions are resolved by the paths alone, never by the order of the table: every route
 * whose name another route shares moves to a longer form, all of them at once, until the
 * names differ: first every segment but a leading `v1` (literals as written, parameters
 * by name), then every segment. A name still shared after that is returned as is (the
 * document test fails on it).
 */
import type { Method } from './route-spec';

/** The kind namespaces of `/v1/vis/docs`, `/v1/code/jobs`: they never tell two routes apart. */
const NAMESPACES = new Set(['vis', 'code']);

const isParam = (segment: string | undefined) => segment?.startsWith(':') ?? false;
const paramName = (segment: string) => segment.slice(1).replace(/\+$/, '');

function pascal(text: string): string {
  return text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

const singular = (word: string) =>
  word.length > 2 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;

/** The words of a path in form 0 (short), 1 (every segment but a leading v1) or 2 (every segment). */
function pathWords(path: string, form: 0 | 1 | 2): string[] {
  const segments = path.split('/').filter(Boolean);
  if (form === 2) return segments.map((s) => (isParam(s) ? paramName(s) : s));
  if (segments[0] === 'v1') segments.shift();
  if (form === 1) return segments.map((s) => (isParam(s) ? paramName(s) : s));
  const words: string[] = [];
  segments.forEach((s, i) => {
    const next = segments[i + 1];
    if (isParam(s)) {
      if (i === 0 || isParam(segments[i - 1])) words.push(paramName(s));
    } else if (NAMESPACES.has(s) && next !== undefined && !isParam(next)) {
      // a namespace in front of its collection: left out
    } else if (!isParam(next)) words.push(s);
    else if (s.length === 1) words.push(paramName(next!));
    else if (paramName(next!) === 'owner') words.push('owner');
    else if (singular(s) !== s) words.push(singular(s));
    else words.push(s, paramName(next!));
  });
  return words;
}

/** The operationId of one route in one form. */
export function operationIdOf(method: Method, path: string, form: 0 | 1 | 2 = 0): string {
  return method + pathWords(path, form).map(pascal).join('');
}

/** The operationId of every route (`METHOD path` → id), collisions resolved as the header says. */
export function operationIds(routes: readonly { method: Method; path: string }[]): Map<string, string> {
  const forms = routes.map(() => 0 as 0 | 1 | 2);
  let names = routes.map((r) => operationIdOf(r.method, r.path));
  for (;;) {
    const count = new Map<string, number>();
    for (const n of names) count.set(n, (count.get(n) ?? 0) + 1);
    let moved = false;
    routes.forEach((r, i) => {
      if (count.get(names[i]!)! > 1 && forms[i]! < 2) {
        forms[i] = (forms[i]! + 1) as 1 | 2;
        moved = true;
      }
    });
    if (!moved) break;
    names = routes.map((r, i) => operationIdOf(r.method, r.path, forms[i]));
  }
  return new Map(routes.map((r, i) => [`${r.method.toUpperCase()} ${r.path}`, names[i]!]));
}
