// Pure-function tests that time themselves, in Node (sub-millisecond clock) and alone: one
// file at a time, nothing else of the suite running beside them. The parsers they load
// import nothing from the Workers runtime.
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
