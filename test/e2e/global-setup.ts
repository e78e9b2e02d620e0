/**
 * Starts the real server exactly as `npm start` does (scripts/start.mjs: .dev.vars, D1
 * migrations, wrangler dev), on a free port with a fresh state folder, and hands the
 * base URL and the operator token to the tests.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
// @ts-expect-error plain ESM helper shared with the bench
import { startPlatform } from '../../scripts/serve.mjs';

const RESULTS = join(import.meta.dirname, '..', '..', '.test-results');

export default async function setup(project: TestProject) {
  // RATE_LIMITING:off: the suite's own volume (few tokens, one address) must not be throttled.
  const server = await startPlatform({
    extraArgs: ['--var', 'ALLOW_CLOCK_OVERRIDE:true', '--var', 'RATE_LIMITING:off'],
  });
  project.provide('base', server.base);
  project.provide('ops', server.ops);
  project.provide('stateDir', server.stateDir);
  project.provide('inspector', server.inspector);
  return async () => {
    // What the shared server printed (each request, its time, any uncaught error), kept beside
    // the suite's results: a failure that shows only in a full run can be read afterwards.
    mkdirSync(RESULTS, { recursive: true });
    writeFileSync(join(RESULTS, 'e2e-server.log'), server.log.join(''));
    await server.stop();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    base: string;
    ops: string;
    stateDir: string;
    /** The DevTools inspector port wrangler was given (off unless INSPECT=1). */
    inspector: number;
  }
}
