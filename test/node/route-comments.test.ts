/**
 * The `// METHOD path` lines of every src/<area>/routes.ts are the area's endpoint table as a
 * reader sees it (CONTRIBUTING.md: every route of an area in its routes.ts with such a
 * comment). Checked here against the routes the table actually mounted (the Api records, for
 * each route, the routes.ts that mounted it): every mounted route is named by its table's
 * comments, and every comment names a route that table mounts.
 *
 * A comment line is `// GET|POST /v1/path` (methods joined by `|`). Two statements of the
 * comments stand for a whole family of routes and are read as such:
 * - "Every path below A is also served below B ..., except PUT (create)": each commented
 *   route below A is also mounted below B, but the PUT that creates (`PUT A/:param`);
 * - "(each also under B)", after a block of comment lines: each route of that block is also
 *   mounted with the part of its path up to B's last segment replaced by B.
 */
import { describe, expect, it } from 'vitest';
import { buildApi } from '../../src/app';

// test/node shares the Worker's tsconfig (its types are the Workers runtime's): Node's fs is
// typed here as this test uses it, like named-paths.test.ts does.
const load = (name: string): Promise<unknown> => import(/* @vite-ignore */ name);
const { readFileSync } = (await load('node:fs')) as { readFileSync(path: string, encoding: 'utf8'): string };

const COMMENT = /^\s*\/\/ ([A-Z]+(?:\|[A-Z]+)*) (\/\S*)\s*$/;
const EACH_ALSO = /^\s*\/\/ \(each also under (\/\S+)\)\s*$/;
const EVERY_PATH = /Every path below (\/\S+) is also served below (\/\S+)(?: \([^)]*\))?(, except PUT \(create\))?/g;

/** The routes (`METHOD path`) a routes.ts names in its comments, its family statements applied. */
function commentedRoutes(source: string): Set<string> {
  const named = new Set<string>();
  let block: string[] = [];
  for (const line of source.split('\n')) {
    const route = COMMENT.exec(line);
    const each = EACH_ALSO.exec(line);
    if (route) {
      const routes = route[1]!.split('|').map((method) => `${method} ${route[2]}`);
      routes.forEach((r) => named.add(r));
      block.push(...routes);
    } else if (each) {
      const under = each[1]!;
      const last = under.slice(under.lastIndexOf('/'));
      for (const r of block) {
        const [method, path] = r.split(' ') as [string, string];
        const cut = `${path}/`.indexOf(`${last}/`);
        if (cut >= 0) named.add(`${method} ${under}${path.slice(cut + last.length)}`);
      }
    } else block = [];
  }
  // The statements of the file's doc comment, its lines joined.
  const prose = source.replace(/^\s*\*\s?/gm, ' ').replace(/\s+/g, ' ');
  for (const [, below, also, exceptCreate] of prose.matchAll(EVERY_PATH)) {
    // A copy: the loop adds to `named`, and must not visit what it adds.
    for (const r of Array.from(named)) {
      const [method, path] = r.split(' ') as [string, string];
      if (path !== below && !path.startsWith(below! + '/')) continue;
      const rest = path.slice(below!.length);
      if (exceptCreate && method === 'PUT' && /^\/:\w+$/.test(rest)) continue;
      named.add(`${method} ${also}${rest}`);
    }
  }
  return named;
}

describe('the // METHOD path comments of every routes.ts', () => {
  const { table } = buildApi({ recordSources: true });
  const tables = [...new Set(table.map((r) => r.table!))];

  it.each(tables)('%s names every route it mounts, and only those', (file) => {
    const mounted = new Set(table.filter((r) => r.table === file).map((r) => `${r.method.toUpperCase()} ${r.path}`));
    const named = commentedRoutes(readFileSync(file, 'utf8'));
    expect({
      mountedNotNamed: [...mounted].filter((r) => !named.has(r)),
      namedNotMounted: [...named].filter((r) => !mounted.has(r)),
    }).toEqual({ mountedNotNamed: [], namedNotMounted: [] });
  });

  it('reads the family statements as they are written', () => {
    const source = [
      '/**',
      ' * Every path below /v1/vis/docs is also served below /v1/users/:owner/vis/docs (the owner’s',
      ' * path), except PUT (create).',
      ' */',
      '  // PUT|GET /v1/vis/docs/:doc',
      '  // GET /v1/admin/webhooks/:name',
      '  // (each also under /v1/admin/orgs/:org/webhooks)',
    ].join('\n');
    expect([...commentedRoutes(source)].sort()).toEqual([
      'GET /v1/admin/orgs/:org/webhooks/:name',
      'GET /v1/admin/webhooks/:name',
      'GET /v1/users/:owner/vis/docs/:doc',
      'GET /v1/vis/docs/:doc',
      'PUT /v1/vis/docs/:doc',
    ]);
  });
});
