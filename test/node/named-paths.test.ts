/**
 * The repository stands alone and its prose stays true: every file or folder a Markdown
 * page (README.md, docs/) or a comment (src/, durable/, test/, scripts/, bench/, the
 * migrations and the root configs) names exists, and nothing points outside the repository
 * (the API's reference is /v1/openapi.json, /v1/docs and docs/areas/, not a folder a clone
 * does not have) or at a tracker's numbers. Checked:
 * - paths from the repository's root (`src/…`, `test/…`, `docs/…`, `scripts/…`, `bench/…`,
 *   `durable/…`, `migrations/…`) in prose; with a file extension also in string literals
 *   (a GraphQL description is served to clients); `src/core/api` may leave out `.ts`;
 * - paths from src/ (`core/perms.ts`, `jobs/run/run-routes.ts`) with a file extension;
 * - a page mentioned by its file name alone (`ARCHITECTURE.md`): a page of this repository;
 * - Markdown links to a relative file, and their `#anchor` when the target is a page.
 * A name with a pattern in it (`src/<area>/routes.ts`, `docs/areas/*.md`, `{d,g}`, `…`) is
 * a family of files, not one: skipped.
 */
import { describe, expect, it } from 'vitest';

// The few Node calls this test makes, typed here: test/node shares the Worker's tsconfig,
// whose types are the Workers runtime's (Node's would leak into src/).
interface Entry {
  name: string;
  isDirectory(): boolean;
  isFile(): boolean;
}
interface NodeFs {
  existsSync(path: string): boolean;
  readdirSync(path: string, options: { withFileTypes: true }): Entry[];
  readFileSync(path: string, encoding: 'utf8'): string;
}
interface NodePath {
  basename(path: string): string;
  dirname(path: string): string;
  extname(path: string): string;
  join(...paths: string[]): string;
  relative(from: string, to: string): string;
  resolve(...paths: string[]): string;
}
const load = (name: string): Promise<unknown> => import(/* @vite-ignore */ name);
const { existsSync, readdirSync, readFileSync } = (await load('node:fs')) as NodeFs;
const { basename, dirname, extname, join, relative, resolve } = (await load('node:path')) as NodePath;
/** The repository: vitest runs from it (its include patterns are relative to it). */
const root = ((await load('node:process')) as { cwd(): string }).cwd();

/** Text a reader takes for the truth about the repository: prose (Markdown, comments) or a string literal. */
interface Piece {
  file: string;
  kind: 'prose' | 'string';
  text: string;
  /** Offset of `text` in the file. */
  at: number;
}

// ------------------------------------------------------------------ the files read

const CODE = new Set(['.ts', '.mts', '.mjs', '.cjs', '.js']);

/** Every file under `dir` (relative to the root), skipping dependencies, build output and dot folders. */
function walk(dir: string): string[] {
  const abs = join(root, dir);
  if (!existsSync(abs)) return [];
  return readdirSync(abs, { withFileTypes: true }).flatMap((e) => {
    if (e.name.startsWith('.') || e.name === 'node_modules') return [];
    const rel = join(dir, e.name);
    return e.isDirectory() ? walk(rel) : [rel];
  });
}

const rootFiles = readdirSync(root, { withFileTypes: true })
  .filter((e) => e.isFile())
  .map((e) => e.name);
const markdown = [...rootFiles.filter((f) => f.endsWith('.md')), ...walk('docs').filter((f) => f.endsWith('.md'))];
const code = [
  ...rootFiles.filter((f) => CODE.has(extname(f))),
  ...['src', 'durable', 'test', 'scripts', 'bench'].flatMap(walk).filter((f) => CODE.has(extname(f))),
];
const sql = walk('migrations').filter((f) => f.endsWith('.sql'));
const graphql = walk('src').filter((f) => f.endsWith('.graphql'));
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/**
 * Comments (prose) and string literals of JavaScript or TypeScript source, template literals and regex literals
 * understood.
 */
function jsPieces(file: string, src: string): Piece[] {
  const out: Piece[] = [];
  const opens: number[] = []; // brace depth at each open `${` of a template literal
  let depth = 0;
  let prev = ''; // the last code character that is not a space: tells a regex literal from a division
  let i = 0;
  /** A template literal's text from `from` up to its end or its next `${`; returns where code resumes. */
  const template = (from: number): number => {
    let j = from;
    while (j < src.length && src[j] !== '`' && !(src[j] === '$' && src[j + 1] === '{')) j += src[j] === '\\' ? 2 : 1;
    out.push({ file, kind: 'string', text: src.slice(from, j), at: from });
    if (src[j] === '$') {
      opens.push(depth);
      return j + 2;
    }
    return j + 1;
  };
  while (i < src.length) {
    const c = src[i]!;
    const next = src[i + 1];
    if (c === '/' && next === '/') {
      const end = src.indexOf('\n', i) < 0 ? src.length : src.indexOf('\n', i);
      out.push({ file, kind: 'prose', text: src.slice(i + 2, end), at: i + 2 });
      i = end;
    } else if (c === '/' && next === '*') {
      const end = src.indexOf('*/', i + 2) < 0 ? src.length : src.indexOf('*/', i + 2);
      out.push({ file, kind: 'prose', text: src.slice(i + 2, end), at: i + 2 });
      i = end + 2;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < src.length && src[j] !== c && src[j] !== '\n') j += src[j] === '\\' ? 2 : 1;
      out.push({ file, kind: 'string', text: src.slice(i + 1, j), at: i + 1 });
      i = j + 1;
      prev = c;
    } else if (c === '`') {
      i = template(i + 1);
      prev = c;
    } else if (c === '/' && (prev === '' || '(,=:[!&|?{};+-*%<>~^'.includes(prev))) {
      let j = i + 1;
      let inClass = false;
      while (j < src.length && src[j] !== '\n' && (inClass || src[j] !== '/')) {
        if (src[j] === '[') inClass = true;
        else if (src[j] === ']') inClass = false;
        j += src[j] === '\\' ? 2 : 1;
      }
      i = j + 1;
      prev = '/';
    } else if (c === '}' && opens.length && opens[opens.length - 1] === depth) {
      opens.pop();
      i = template(i + 1);
      prev = '`';
    } else {
      if (c === '{') depth++;
      if (c === '}') depth--;
      if (!/\s/.test(c)) prev = c;
      i++;
    }
  }
  return out;
}

/** The comments of a file whose comments run from `mark` to the end of the line (SQL `--`). */
function linePieces(file: string, src: string, mark: string): Piece[] {
  const out: Piece[] = [];
  let at = 0;
  for (const line of src.split('\n')) {
    const k = line.indexOf(mark);
    if (k >= 0) out.push({ file, kind: 'prose', text: line.slice(k + mark.length), at: at + k + mark.length });
    at += line.length + 1;
  }
  return out;
}

const pieces: Piece[] = [
  ...markdown.map((file): Piece => ({ file, kind: 'prose', text: read(file), at: 0 })),
  ...graphql.map((file): Piece => ({ file, kind: 'prose', text: read(file), at: 0 })),
  ...code.flatMap((file) => jsPieces(file, read(file))),
  ...sql.flatMap((file) => linePieces(file, read(file), '--')),
  ...linePieces('wrangler.toml', read('wrangler.toml'), '#'),
];

/** `file:line` of an offset into the file. */
function where(file: string, offset: number): string {
  return `${file}:${read(file).slice(0, offset).split('\n').length}`;
}

// ------------------------------------------------------------------ the names

const ROOT_DIRS = ['src', 'test', 'docs', 'scripts', 'bench', 'durable', 'migrations'];
/** src/'s folders: a name that starts with one (`core/perms.ts`) is a path from src/. */
const SRC_DIRS = readdirSync(join(root, 'src'), { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name);
const EXTENSION = /\.(ts|mts|mjs|cjs|js|md|sql|json|toml|graphql|html|css|txt)$/;
/** A character that makes a name a pattern (a family of files) rather than one file. */
const PATTERN = /[<>*{}$…]|\.\.\./;
/**
 * A path-like run of characters after a folder name; it ends at a space, a quote, a bracket, punctuation or an #anchor.
 */
const PATH_TAIL = String.raw`(?:/[^\s\`'"()\[\],;:|#]*)?`;
const NAMED = new RegExp(
  String.raw`(?<![\w./@$<>~-])(?:${[...new Set([...ROOT_DIRS, ...SRC_DIRS])].join('|')})${PATH_TAIL}`,
  'g',
);

/**
 * Where a name points, if anywhere: the root's file or folder, else src/'s (for a name starting with a folder of src/).
 */
function resolves(name: string, fromFile: string): boolean {
  const candidates = [name, `${name}.ts`, join('src', name), join(dirname(fromFile), name)];
  return candidates.some((c) => existsSync(join(root, c)));
}

/** Every name in a piece that must exist and does not, as `file:line name`. */
function missingPaths(p: Piece): string[] {
  const out: string[] = [];
  for (const m of p.text.matchAll(NAMED)) {
    const name = m[0].replace(/[.)]+$/, ''); // the sentence's full stop, a closing parenthesis
    if (PATTERN.test(name)) continue;
    if (!name.includes('/')) continue; // `core`, `docs` alone are words; `docs/` is a folder
    const fromRoot = ROOT_DIRS.includes(name.split('/')[0]!);
    const isFile = EXTENSION.test(name);
    // In prose a root path counts in any form, a path from src/ as a file name; in a string literal only a root path to
    // a file.
    if (p.kind === 'string' ? !(fromRoot && isFile) : !(fromRoot || isFile)) continue;
    if (!resolves(name.replace(/\/$/, ''), p.file)) out.push(`${where(p.file, p.at + m.index!)} ${name}`);
  }
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens. */
const anchor = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

describe('named paths', () => {
  it('reads the prose of the whole repository (a sanity check of what is scanned)', () => {
    expect(markdown).toContain('README.md');
    expect(markdown).toContain(join('docs', 'ARCHITECTURE.md'));
    expect(code).toContain(join('src', 'index.ts'));
    expect(code).toContain(join('test', 'node', 'named-paths.test.ts'));
    // The scanner itself: a comment, strings of every kind, a regex literal with a quote in it.
    // oxlint-disable-next-line no-template-curly-in-string -- JavaScript source for the scanner, template literal included
    const ps = jsPieces('x.ts', "const a = /['\"]/g; // one\nconst b = `t ${'u' + `v`} w`; /* two */");
    expect(ps.map((p) => `${p.kind}:${p.text}`)).toEqual([
      'prose: one',
      'string:t ',
      'string:u',
      'string:v',
      'string: w',
      'prose: two ',
    ]);
  });

  it('every src/, test/, docs/, scripts/, bench/, durable/ and migrations/ path named in prose exists', () => {
    expect(pieces.flatMap(missingPaths)).toEqual([]);
  });

  it('every page mentioned by its file name is a page of this repository', () => {
    const pages = new Set(markdown.map((f) => basename(f)));
    const missing = pieces
      .filter((p) => p.kind === 'prose')
      .flatMap((p) =>
        [...p.text.matchAll(/(?<![\w./-])[\w-]+\.md\b/g)]
          .filter((m) => !pages.has(m[0]))
          .map((m) => `${where(p.file, p.at + m.index!)} ${m[0]}`),
      );
    expect(missing).toEqual([]);
  });

  it("every Markdown link to a file of the repository finds it (and its heading, for a page's #anchor)", () => {
    const missing: string[] = [];
    for (const file of markdown) {
      const text = read(file);
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^([a-z]+:|#|\/)/.test(target)) continue; // another site, this page, a path of the API
        const [path, hash] = target.split('#') as [string, string | undefined];
        const abs = resolve(join(root, dirname(file)), path);
        if (!existsSync(abs)) missing.push(`${where(file, m.index!)} ${target}`);
        else if (hash && abs.endsWith('.md')) {
          const headings = [...readFileSync(abs, 'utf8').matchAll(/^#+ (.*)$/gm)].map((h) => anchor(h[1]!));
          if (!headings.includes(hash))
            missing.push(`${where(file, m.index!)} ${target} (no such heading in ${relative(root, abs)})`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('nothing points outside the repository or at a tracker: no shared spec folder, no "issue N"', () => {
    const outside = /\.\.\/shared\b|\bshared\/spec\b|\/work\//;
    const tracker = /\bissues? #?\d+/i;
    const found = [...markdown, ...code, ...sql, ...graphql, 'wrangler.toml'].flatMap((file) =>
      read(file)
        .split('\n')
        .flatMap((line, n) => (outside.test(line) || tracker.test(line) ? [`${file}:${n + 1} ${line.trim()}`] : [])),
    );
    expect(found).toEqual([]);
  });
});
