import { describe, expect, inject, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with the bench
import { startPlatform } from '../../scripts/serve.mjs';

/** Whether anything answers DevTools' version probe on the port. */
async function inspectorAnswers(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/json/version`, { signal: AbortSignal.timeout(3000) });
    return res.ok;
  } catch {
    return false;
  }
}

// wrangler's inspector proxy buffers every runtime event (one per D1, R2 and Durable Object
// call) until DevTools attaches: left on under load, its memory grew without bound.
describe("npm start and wrangler's DevTools inspector", () => {
  it('npm start serves with the inspector proxy off (nothing listens on the inspector port)', async () => {
    expect(await inspectorAnswers(inject('inspector'))).toBe(false);
    expect((await fetch(`${inject('base')}/v1/openapi.json`)).status).toBe(200);
  });

  it('INSPECT=1 npm start turns the inspector on for DevTools', async () => {
    const server = await startPlatform({ env: { INSPECT: '1' } });
    try {
      expect(await inspectorAnswers(server.inspector)).toBe(true);
      expect((await fetch(`${server.base}/v1/openapi.json`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
