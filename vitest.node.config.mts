// Tests that need Node: pure functions that time themselves (sub-millisecond clock), alone:
// one file at a time, nothing else of the suite running beside them (the parsers they load
// import nothing from the Workers runtime); and the repository's own references, read from
// its files (test/node/named-paths.test.ts).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/node/**/*.test.ts'],
    environment: 'node',
    fileParallelism: false,
    // gc() between samples: a collection of the previous size's garbage is not timed as growth.
    execArgv: ['--expose-gc'],
    testTimeout: 120_000,
  },
});
