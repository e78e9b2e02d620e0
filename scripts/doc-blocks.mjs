#!/usr/bin/env node
// Blocks of the docs written from the repository rather than by hand: each lies between
// `<!-- <name>: … -->` and `<!-- /<name> -->` in its page. `npm run docs` (this script with
// --write) rewrites them; test/node/docs-drift.test.ts fails while one is not current.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const WIDTH = 95;

/** `text` in lines of at most WIDTH characters, broken at spaces. */
function wrap(text) {
  const lines = [];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= WIDTH) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines.join('\n');
}

/** The D1 migrations (migrations/*.sql), in the order wrangler applies them: by name. */
export function migrationList(dir = root) {
  const names = readdirSync(join(dir, 'migrations'))
    .filter((f) => f.endsWith('.sql'))
    .sort()
    .map((f) => `\`${f.slice(0, -'.sql'.length)}\``);
  return wrap(`The D1 migrations (\`migrations/\`), in the order they apply: ${names.join(', ')}.`);
}

/** Every generated block: the page it is in, its name and its text. */
export function blocks(dir = root) {
  return [{ file: 'docs/ARCHITECTURE.md', name: 'migrations', text: migrationList(dir) }];
}

const markers = (name) => new RegExp(`(<!-- ${name}:[^\\n]*-->\\n)([\\s\\S]*?)(<!-- /${name} -->)`);

/** The text between a block's markers in `page` (undefined: the page has no such block). */
export function blockIn(page, name) {
  return markers(name).exec(page)?.[2];
}

/** `page` with the block's text replaced (the page must hold its markers). */
export function withBlock(page, name, text) {
  if (blockIn(page, name) === undefined) throw new Error(`no <!-- ${name}: --> … <!-- /${name} --> block`);
  return page.replace(markers(name), (_m, open, _old, close) => `${open}${text.replace(/\n*$/, '\n')}${close}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const write = process.argv.includes('--write');
  let stale = 0;
  for (const { file, name, text } of blocks()) {
    const path = join(root, file);
    const page = readFileSync(path, 'utf8');
    const next = withBlock(page, name, text);
    if (next === page) continue;
    if (write) writeFileSync(path, next);
    else stale++;
    console.log(`${write ? 'wrote' : 'stale'}: ${file} (${name})`);
  }
  process.exit(stale ? 1 : 0);
}
