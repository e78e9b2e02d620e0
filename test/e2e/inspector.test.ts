import { describe, expect, inject, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with the bench
import { startPlatform } from '../../scripts/serve.mjs';

/** What DevTools' version probe on the port gets: the status, or why it got none. */
async function probe(port: number): Promise<string> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/json/version`, { signal: AbortSignal.timeout(3000) });
    return `${res.status} ${await res.text()}`;
  } catch (e) {
    return String((e as Error & { cause?: unknown }).cause ?? e);
  }
}

/**
 * Probes until the inspector answers or `ms` pass: on a loaded machine its socket may take a
 * moment longer than the Worker's. Gives every answer, for the failure message.
 */
async function probeUntilAnswered(port: number, ms: number): Promise<string[]> {
  const answers: string[] = [];
  const deadline = Date.now() + ms;
  do {
    answers.push(await probe(port));
    if (answers.at(-1)!.startsWith('200 ')) break;
    await new Promise((r) => setTimeout(r, 500));
  } while (Date.now() < deadline);
  return answers;
}

// wrangler's inspector proxy buffers every runtime event (one per D1, R2 and Durable Object
// call) until DevTools attaches: left on under load, its memory grew without bound.
describe("npm start and wrangler's DevTools inspector", () => {
  it('npm start serves with the inspector proxy off (nothing listens on the inspector port)', async () => {
    expect(await probe(inject('inspector'))).toMatch(/ECONNREFUSED/);
    expect((await fetch(`${inject('base')}/v1/openapi.json`)).status).toBe(200);
  });

  it('INSPECT=1 npm start turns the inspector on for DevTools', async () => {
    const server = await startPlatform({ env: { INSPECT: '1' } });
    try {
      const answers = await probeUntilAnswered(server.inspector, 20_000);
      const why = `probes: ${answers.join(' | ')}\nserver log:\n${server.log.join('').slice(-4000)}`;
      expect(answers.at(-1), why).toMatch(/^200 .*"Browser":"wrangler\//);
      expect((await fetch(`${server.base}/v1/openapi.json`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
