// One idea per file (CONTRIBUTING.md): no source file of the Worker or its Durable Objects
// over 400 lines; a file that grows past it holds two ideas, split along them.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
const MAX_LINES = 400;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('file size', () => {
  it(`no file in src/ or durable/ is over ${MAX_LINES} lines`, () => {
    const long = [...sources(join(root, 'src')), ...sources(join(root, 'durable'))]
      .map((f) => [relative(root, f), readFileSync(f, 'utf8').split('\n').length - 1] as const)
      .filter(([, n]) => n > MAX_LINES)
      .map(([f, n]) => `${f}: ${n} lines`);
    expect(long).toEqual([]);
  });
});
