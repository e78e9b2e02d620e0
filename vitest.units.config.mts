// Pure functions (test/worker/**/*.unit.test.ts) in Node, both cores: they import no binding,
// so starting a workerd runtime for each file (about 4 s) bought nothing. They share the
// Node suite's stubs of the `cloudflare:*` modules and text imports; the workerd suite
// (vitest.config.mts) runs everything that goes through the Worker.
import { defineConfig } from 'vitest/config';
import node from './vitest.node.config.mts';

export default defineConfig({
  ...node,
  test: { ...node.test, include: ['test/worker/**/*.unit.test.ts'], fileParallelism: true, maxWorkers: 2 },
});
