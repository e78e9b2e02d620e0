// One idea per file (CONTRIBUTING.md): no source file of the Worker or its Durable Objects
// over 400 lines; a file that grows past it holds two ideas, split along them.
import { describe, expect, it } from 'vitest';
import { workerSources } from './worker-sources';

const MAX_LINES = 400;

describe('file size', () => {
  it(`no file in src/ or durable/ is over ${MAX_LINES} lines`, () => {
    const long = workerSources()
      .map(({ path, text }) => [path, text.split('\n').length - 1] as const)
      .filter(([, n]) => n > MAX_LINES)
      .map(([f, n]) => `${f}: ${n} lines`);
    expect(long).toEqual([]);
  });
});
