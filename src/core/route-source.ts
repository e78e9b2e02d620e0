/**
 * Where a route was declared, read from the stack at its registration: the first frame
 * outside the route machinery (api.ts, scope.ts) is the file holding the route's spec and
 * handler; the first area table (src/<area>/routes.ts) on the way up mounted it. Only when
 * the Api is asked to (docs/ROUTES.md is generated from it): a stack trace per route.
 */

/** The route machinery: frames of these files are not where a route is declared. */
const MACHINERY = /\/src\/core\/(api|scope)\.ts\b/;
const AREA_TABLE = /\/src\/[a-z]+\/routes\.ts\b/;

/** The repository-relative source files on the current stack, innermost first. */
function stackFiles(): string[] {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = Infinity;
  const stack = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return [...stack.matchAll(/(\/src\/[\w/.-]+\.ts)\b/g)].map((m) => m[1]!.slice(1));
}

export function declarationSite(): { file?: string; table?: string } {
  const files = stackFiles().filter((f) => !f.endsWith('core/route-source.ts'));
  return { file: files.find((f) => !MACHINERY.test('/' + f)), table: files.find((f) => AREA_TABLE.test('/' + f)) };
}
