/**
 * Starts the real server exactly as `npm start` does (scripts/start.mjs: .dev.vars, D1
 * migrations, wrangler dev), on a free port with a fresh state folder, and hands the
 * base URL and the operator token to the tests.
 */
import type { TestProject } from 'vitest/node';
// @ts-expect-error plain ESM helper shared with the bench
import { startPlatform } from '../../scripts/serve.mjs';

export default async function setup(project: TestProject) {
  // RATE_LIMITING:off: the suite's own volume (few tokens, one address) must not be throttled.
  const server = await startPlatform({
    extraArgs: ['--var', 'ALLOW_CLOCK_OVERRIDE:true', '--var', 'RATE_LIMITING:off'],
  });
  project.provide('base', server.base);
  project.provide('ops', server.ops);
  project.provide('stateDir', server.stateDir);
  project.provide('inspector', server.inspector);
  return () => server.stop();
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
