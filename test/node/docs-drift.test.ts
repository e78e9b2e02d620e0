/**
 * What README.md and docs/ARCHITECTURE.md say about the configuration and the code's shape,
 * held to the files that decide it, so that the docs cannot lag a change:
 * - every binding and var of wrangler.toml is a row of the README's Configuration table;
 * - every Durable Object class of wrangler.toml, and its binding, is named by both pages;
 * - ARCHITECTURE's list of migrations is the one scripts/doc-blocks.mjs writes from migrations/
 *   (`npm run docs` rewrites it);
 * - every layer order the pages draw is the one .dependency-cruiser.cjs enforces, derived from
 *   its rules (which folder may import which);
 * - the duties of `scheduled()` the pages list are the calls of src/index.ts's handler, in order.
 */
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript script
import { blockIn, blocks } from '../../scripts/doc-blocks.mjs';

// test/node shares the Worker's tsconfig (its types are the Workers runtime's): the Node calls
// this test makes are typed here, like named-paths.test.ts does.
const load = (name: string): Promise<unknown> => import(/* @vite-ignore */ name);
const { readFileSync, readdirSync } = (await load('node:fs')) as {
  readFileSync(path: string, encoding: 'utf8'): string;
  readdirSync(path: string, options: { withFileTypes: true }): { name: string; isDirectory(): boolean }[];
};
const { createRequire } = (await load('node:module')) as { createRequire(from: string): (id: string) => unknown };
/** The repository: vitest runs from it. */
const root = ((await load('node:process')) as { cwd(): string }).cwd();
const read = (file: string) => readFileSync(`${root}/${file}`, 'utf8');

const README = read('README.md');
const ARCHITECTURE = read('docs/ARCHITECTURE.md');

// ------------------------------------------------------------------ wrangler.toml

/** The tables of wrangler.toml: `[name]` or `[[name]]` and the text below it. */
function tomlTables(toml: string): { name: string; body: string }[] {
  return toml
    .split(/^(?=\[)/m)
    .slice(1)
    .map((part) => ({ name: /^\[\[?([\w.]+)\]\]?/.exec(part)![1]!, body: part }));
}

const TOML = tomlTables(read('wrangler.toml'));
const tables = (name: string) => TOML.filter((t) => t.name === name).map((t) => t.body);
const values = (body: string, key: string) =>
  [...body.matchAll(new RegExp(`^\\s*(?:\\{\\s*)?${key}\\s*=\\s*"(\\w+)"`, 'gm'))].map((m) => m[1]!);

/** Durable Objects: binding and class of each. */
const OBJECTS = tables('durable_objects').flatMap((body) =>
  [...body.matchAll(/name\s*=\s*"(\w+)",\s*class_name\s*=\s*"(\w+)"/g)].map((m) => ({ binding: m[1]!, cls: m[2]! })),
);

/** Every name the Worker is given by wrangler.toml: bindings, and vars (set or commented out). */
const BINDINGS = [
  ...['d1_databases', 'r2_buckets', 'worker_loaders', 'browser', 'assets'].flatMap((t) =>
    tables(t).flatMap((b) => values(b, 'binding')),
  ),
  ...OBJECTS.map((o) => o.binding),
  ...['ratelimits', 'send_email'].flatMap((t) => tables(t).flatMap((b) => values(b, 'name'))),
  ...tables('vars').flatMap((b) => [...b.matchAll(/^(?:#\s*)?([A-Z][A-Z0-9_]*)\s*=/gm)].map((m) => m[1]!)),
];

/** The names (in backticks) of the first column of the README's Configuration table. */
function configurationNames(readme: string): string[] {
  const section = readme.split(/^## Configuration$/m)[1]?.split(/^## /m)[0] ?? '';
  return section
    .split('\n')
    .filter((l) => l.startsWith('| `'))
    .flatMap((l) => [...l.split('|')[1]!.matchAll(/`(\w+)`/g)].map((m) => m[1]!));
}

describe('wrangler.toml in the docs', () => {
  it('reads the bindings and vars of wrangler.toml (a sanity check of the parse)', () => {
    expect(BINDINGS).toEqual(expect.arrayContaining(['DB', 'BLOBS', 'LOADER', 'BROWSER', 'RATE_LIMIT', 'SEND_EMAIL']));
    expect(BINDINGS).toEqual(expect.arrayContaining(['PUBLIC_ORIGIN', 'RETENTION', 'ACCOUNT_DELETION_STEPS']));
    expect(OBJECTS.length).toBeGreaterThan(0);
  });

  it("every binding and var of wrangler.toml is a row of the README's Configuration table", () => {
    const rows = new Set(configurationNames(README));
    expect(BINDINGS.filter((b) => !rows.has(b))).toEqual([]);
  });

  it.each([
    ['README.md', README],
    ['docs/ARCHITECTURE.md', ARCHITECTURE],
  ])('%s names every Durable Object class of wrangler.toml and its binding', (_file, page) => {
    const named = (word: string) => new RegExp(`\\b${word}\\b`).test(page);
    expect(OBJECTS.flatMap((o) => [o.cls, o.binding]).filter((w) => !named(w))).toEqual([]);
  });
});

// ------------------------------------------------------------------ migrations

describe('the migrations in docs/ARCHITECTURE.md', () => {
  it('every migration file is named', () => {
    const files = readdirSync(`${root}/migrations`, { withFileTypes: true })
      .map((e) => e.name)
      .filter((n) => n.endsWith('.sql'))
      .map((n) => n.slice(0, -'.sql'.length));
    expect(files.filter((n) => !ARCHITECTURE.includes(n))).toEqual([]);
  });

  it.each(blocks(root) as { file: string; name: string; text: string }[])(
    'the generated block $name of $file is current (npm run docs rewrites it)',
    ({ file, name, text }) => {
      expect(blockIn(read(file), name)).toBe(text.replace(/\n*$/, '\n'));
    },
  );
});

// ------------------------------------------------------------------ layers

interface Rule {
  name: string;
  from: { path?: string; pathNot?: string };
  to: { path?: string; pathNot?: string; circular?: boolean };
}

/** The units of the layering: src/*.ts, the folders of src/, and durable/; each with a file of it to test rules on. */
function units(): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of readdirSync(`${root}/src`, { withFileTypes: true })) {
    if (e.isDirectory()) out.set(e.name, `src/${e.name}/<file>.ts`);
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.set(e.name.slice(0, -3), `src/${e.name}`);
  }
  out.set('durable', 'durable/<file>.ts');
  return out;
}

/** Whether a rule forbids `from` importing `to` (dependency-cruiser's path, pathNot and `$1` of from.path). */
function forbids(rule: Rule, from: string, to: string): boolean {
  if (rule.to.circular !== undefined) return false;
  const m = rule.from.path === undefined ? null : new RegExp(rule.from.path).exec(from);
  if (rule.from.path !== undefined && !m) return false;
  if (rule.from.pathNot !== undefined && new RegExp(rule.from.pathNot).test(from)) return false;
  const sub = (re: string) => re.replace(/\$(\d)/g, (_x, n: string) => m?.[Number(n)] ?? '');
  if (rule.to.path !== undefined && !new RegExp(sub(rule.to.path)).test(to)) return false;
  if (rule.to.pathNot !== undefined && new RegExp(sub(rule.to.pathNot)).test(to)) return false;
  return true;
}

/**
 * The layers, top to bottom, as the rules of .dependency-cruiser.cjs make them: the units that
 * may import the same others form a layer, and a layer may import every layer below it.
 */
function configLayers(): string[][] {
  const require = createRequire(`${root}/package.json`);
  const { forbidden } = require(`${root}/.dependency-cruiser.cjs`) as { forbidden: Rule[] };
  const all = units();
  const mayImport = new Map(
    [...all].map(([unit, file]) => [
      unit,
      [...all]
        .filter(([other, to]) => other !== unit && !forbidden.some((r) => forbids(r, file, to)))
        .map(([other]) => other)
        .sort()
        .join(' '),
    ]),
  );
  const layers = new Map<string, string[]>();
  for (const [unit, set] of mayImport) layers.set(set, [...(layers.get(set) ?? []), unit]);
  return [...layers]
    .sort(([a], [b]) => (b ? b.split(' ').length : 0) - (a ? a.split(' ').length : 0))
    .map(([, us]) => us.sort());
}

/** A name as the docs write it (`src/index.ts`, `durable/`, `src/db/schema.ts`, `gql`) as a unit. */
const unit = (name: string) =>
  name
    .replace(/`/g, '')
    .trim()
    .replace(/^src\/([\w<>]+)\/.*$/, '$1')
    .replace(/^src\//, '')
    .replace(/\.ts$|\/$/, '');

const AREAS = '<area>';

/** Layers written `a → b, c → d`; `the areas (x → y)` stands for the area levels inside it. */
function arrowLayers(text: string): string[][] {
  return text
    .replace(/the areas \(([^)]*)\)/, '$1')
    .split('→')
    .map((layer) =>
      layer
        .split(',')
        .map(unit)
        .filter((u) => u)
        .sort(),
    );
}

/** The indented block (a drawing) that follows `anchor` in `page`. */
function drawingAfter(page: string, anchor: string): string[] {
  const at = page.indexOf(anchor);
  if (at < 0) throw new Error(`no "${anchor}"`);
  const lines = page.slice(at).split('\n').slice(1);
  const start = lines.findIndex((l) => l.startsWith('    '));
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('    '));
  return lines.slice(start, end);
}

/** Layers drawn one per line, top to bottom: the first column of each line, its units joined by `·`. */
function drawnLayers(drawing: string[]): string[][] {
  return drawing
    .map((l) => /^ {4}(\S(?:\S| (?! ))*)/.exec(l)?.[1])
    .filter((c): c is string => c !== undefined && !/^[│▼]/.test(c))
    .map((c) => c.split('·').map(unit).sort());
}

/** `layers` with the areas' placeholder replaced by their levels. */
const withAreas = (layers: string[][], areas: string[][]) =>
  layers.flatMap((l) => (l.length === 1 && l[0] === AREAS ? areas : [l]));

describe('the layer order in the docs is the one .dependency-cruiser.cjs enforces', () => {
  const LAYERS = configLayers();

  it('derives the layers from the rules (a sanity check: the Worker on top, db/ at the bottom)', () => {
    expect(LAYERS[0]).toEqual(['index']);
    expect(LAYERS.at(-1)).toEqual(['db']);
    expect(LAYERS.flat().sort()).toEqual([...units().keys()].sort());
  });

  it('README "Architecture": the drawing of the layers', () => {
    const drawing = drawingAfter(README, 'Code is cut in layers');
    const areas = arrowLayers(drawing.find((l) => l.includes('→'))!.split(';')[0]!);
    expect(withAreas(drawnLayers(drawing), areas)).toEqual(LAYERS);
  });

  it('README "Contributing": "Layers, top to bottom: …"', () => {
    const sentence = README.split('Layers, top to bottom:')[1]!.split(/ \(\[|\.\s/)[0]!;
    expect(arrowLayers(sentence.replace(/\s+/g, ' '))).toEqual(LAYERS);
  });

  it('docs/ARCHITECTURE.md "Layout": the drawings of the layers and of the area levels', () => {
    const areas = drawnLayers(drawingAfter(ARCHITECTURE, 'The areas are ordered too'));
    expect(withAreas(drawnLayers(drawingAfter(ARCHITECTURE, 'Folders are layers')), areas)).toEqual(LAYERS);
  });
});

// ------------------------------------------------------------------ scheduled()

/** The function each statement of src/index.ts's `scheduled` handler runs (`await f(…)`, `.catch`/`.then` of it, `ctx.waitUntil(f(…))`). */
function scheduledDuties(source: string): string[] {
  const file = ts.createSourceFile('index.ts', source, ts.ScriptTarget.Latest, true);
  let body: ts.Block | undefined;
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAssignment(node) && node.name.getText(file) === 'scheduled') {
      const fn = node.initializer;
      if ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && ts.isBlock(fn.body)) body = fn.body;
    } else if (ts.isMethodDeclaration(node) && node.name.getText(file) === 'scheduled') body = node.body;
    ts.forEachChild(node, visit);
  };
  visit(file);
  if (!body) throw new Error('src/index.ts: no scheduled handler with a block body');
  return body.statements.map((statement) => {
    let e: ts.Expression | undefined = ts.isExpressionStatement(statement) ? statement.expression : undefined;
    while (e) {
      if (ts.isAwaitExpression(e)) e = e.expression;
      else if (
        ts.isCallExpression(e) &&
        ts.isPropertyAccessExpression(e.expression) &&
        ['catch', 'then', 'finally'].includes(e.expression.name.text)
      )
        e = e.expression.expression;
      else if (
        ts.isCallExpression(e) &&
        ts.isPropertyAccessExpression(e.expression) &&
        e.expression.name.text === 'waitUntil'
      )
        e = e.arguments[0];
      else break;
    }
    if (e && ts.isCallExpression(e) && ts.isIdentifier(e.expression)) return e.expression.text;
    throw new Error(`src/index.ts, scheduled(): a statement this check cannot read: ${statement.getText(file)}`);
  });
}

/** The functions named (in backticks) by a page's sentence "`scheduled()` runs, in order: …". */
function statedDuties(page: string): string[] | undefined {
  const sentence = /`scheduled\(\)` runs, in order: ([\s\S]*?)\.(?:\s|$)/.exec(page)?.[1];
  return sentence === undefined ? undefined : [...sentence.matchAll(/`(\w+)`/g)].map((m) => m[1]!);
}

describe('the duties of scheduled() in the docs', () => {
  const duties = scheduledDuties(read('src/index.ts'));

  it('reads the calls of the handler (a sanity check: the job schedule first)', () => {
    expect(duties[0]).toBe('handleScheduled');
  });

  it.each([
    ['README.md', README],
    ['docs/ARCHITECTURE.md', ARCHITECTURE],
  ])('%s: "`scheduled()` runs, in order: …" names its calls in order', (_file, page) => {
    expect(statedDuties(page)).toEqual(duties);
  });
});
