/**
 * A plot's PNG when Browser Rendering fails or does not answer: the draw answers 502 or 504
 * within its deadline (never waits on the browser), and nothing is stored.
 */
import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../src/core/errors';
import { cachedPng } from '../../../src/render/plot-png';

const drawing = async () => ({
  svg: '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>',
  size: { width: 10, height: 10 },
});
const RESOURCE = 987_654;
const stored = async () => (await env.BLOBS.list({ prefix: `r/${RESOURCE}/render/plot.png/` })).objects.length;

describe('PNG draw failures', () => {
  it('a browser that answers an error: 502 naming it, nothing stored', async () => {
    const broken = { ...env, BROWSER: { fetch: async () => new Response('unavailable', { status: 503 }) } };
    const err = await cachedPng(broken as unknown as Env, RESOURCE, 'broken', drawing).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).status).toBe(502);
    expect((err as HttpError).message).toMatch(/^the browser could not draw the PNG: .+/);
    expect(await stored()).toBe(0);
  });

  it('a browser that never answers: 504 at the deadline, nothing stored', async () => {
    const silent = { ...env, BROWSER: { fetch: () => new Promise<Response>(() => undefined) } };
    const t0 = Date.now();
    const err = await cachedPng(silent as unknown as Env, RESOURCE, 'silent', drawing, 300).catch((e: unknown) => e);
    expect(Date.now() - t0).toBeLessThan(2500);
    expect((err as HttpError).status).toBe(504);
    expect((err as HttpError).message).toBe('drawing the PNG took longer than 0.3 s');
    expect(await stored()).toBe(0);
  });
});
