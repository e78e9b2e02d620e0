/**
 * docs/ROUTES.md is the route table as a list: every route, in the order the router tries
 * them, with the file that declares it (its spec and handler) and its summary (what `grep`
 * finds a route by: `grep -i trigger docs/ROUTES.md`), under the area table that
 * mounts it. Built here from the Api itself (it records where each route was declared);
 * this test fails when the file is not current, and `npm run routes` rewrites it.
 */
import { expect, it } from 'vitest';
import { buildApi } from '../../src/app';
import type { DeclaredRoute } from '../../src/core/route-spec';

/** Path parameters whose value has a fixed form, spelled out so that a called url can be found (`grep 'threads/@'`). */
const PARAM_FORMS: Record<string, string> = { ref: '@<author>~<topic>' };

function line({ method, path, file, spec }: DeclaredRoute): string {
  const called = path.replace(/:(\w+)/g, (m, name: string) => PARAM_FORMS[name] ?? m);
  const summary = spec.summary.replace(/\s+/g, ' ').trim();
  return `- \`${method.toUpperCase()} ${path}\`${called === path ? '' : ` (\`${called}\`)`} → ${file}: ${summary}`;
}

function routesMarkdown(table: DeclaredRoute[]): string {
  const out = [
    '# Routes',
    '',
    'Every route of the API in the order the router tries them (the first that matches a request',
    'answers), each with the file that declares it (its spec and its handler) and its summary.',
    'Headings are the area tables (`src/<area>/routes.ts`) that mount them. Generated from the',
    'route table by `npm run routes`; test/node/routes.test.ts fails when this file is not current.',
    '',
    'Parameters: `:owner` and `:user` are user names, `:ref` is `@<author>~<topic>`, `:topic` is',
    '`@<author>~<topic>` or a topic name, `:path+` is `[<comment>/comments/...]<slug>`.',
  ];
  let table_: string | undefined;
  for (const route of table) {
    if (route.table !== table_) out.push('', `## ${(table_ = route.table)}`, '');
    out.push(line(route));
  }
  return out.join('\n') + '\n';
}

it('docs/ROUTES.md lists every route of the table with its file and summary (npm run routes rewrites it)', async () => {
  const { table } = buildApi({ recordSources: true });
  expect(table.filter((r) => !r.file || !r.table).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  await expect(routesMarkdown(table)).toMatchFileSnapshot('../../docs/ROUTES.md');
});
