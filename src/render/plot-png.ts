/**
 * A plot's PNG: its SVG drawn by the browser (Browser Rendering: png-draw.ts, in the browser
 * isolate), at twice its size so it stays sharp on high-density screens and in mail
 * programs, which show no SVG. The PNG is
 * cached in R2 under the plot's blob prefix, keyed by the hash of what was drawn (data,
 * config, size): a write changes the hash, and storing a new PNG removes all but the few
 * newest.
 */
import { blobPrefix } from '../core/entries';
import { HttpError } from '../core/errors';
import { bytesOf } from '../core/isolates';
import type { Size } from '../plots/model';
import { browserIsolate, browserOf, keepAliveMs } from './browser';

/** Longest a PNG render may take. */
const PNG_DEADLINE_MS = 30_000;

/** PNGs kept per plot (the newest): the current plot at a few sizes (its file, a mail's, a document's). */
const KEPT_PNGS = 4;

const pngPrefix = (resourceId: number) => `${blobPrefix(resourceId)}render/plot.png/`;

/** Draws `svg` (of `size`) as PNG bytes in the browser (the browser isolate: png-draw.ts), within `deadlineMs`. */
async function svgToPng(env: Env, svg: string, size: Size, deadlineMs: number): Promise<Uint8Array<ArrayBuffer>> {
  let answer;
  try {
    answer = await browserIsolate(env).drawPng(browserOf(env), keepAliveMs(env), deadlineMs, svg, size);
  } catch (err) {
    throw new HttpError(502, `the browser could not draw the PNG: ${(err as Error).message}`);
  }
  if (!answer.ok) throw new HttpError(504, `drawing the PNG took longer than ${deadlineMs / 1000} s`);
  return bytesOf(answer.bytes);
}

const inflight = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

/**
 * The plot's PNG for `hash` (what was drawn), from R2 or drawn now; concurrent requests for
 * the same PNG in one isolate share one render. `cached` tells which. A draw past `deadlineMs`
 * answers 504.
 */
export async function cachedPng(
  env: Env,
  resourceId: number,
  hash: string,
  draw: () => Promise<{ svg: string; size: Size }>,
  deadlineMs = PNG_DEADLINE_MS,
): Promise<{ bytes: ReadableStream | Uint8Array<ArrayBuffer>; cached: boolean }> {
  const key = pngPrefix(resourceId) + hash;
  const hit = await env.BLOBS.get(key);
  if (hit) return { bytes: hit.body, cached: true };
  let job = inflight.get(key);
  if (!job) {
    job = (async () => {
      const { svg, size } = await draw();
      const bytes = await svgToPng(env, svg, size, deadlineMs);
      await env.BLOBS.put(key, bytes, { httpMetadata: { contentType: 'image/png' } });
      // Older PNGs are stale once the plot changed (a write changes the hash); a few sizes of the current one stay.
      const stored = await env.BLOBS.list({ prefix: pngPrefix(resourceId) });
      const stale = stored.objects
        .filter((o) => o.key !== key)
        .sort((a, b) => b.uploaded.getTime() - a.uploaded.getTime())
        .slice(KEPT_PNGS - 1)
        .map((o) => o.key);
      if (stale.length) await env.BLOBS.delete(stale);
      return bytes;
    })().finally(() => inflight.delete(key));
    inflight.set(key, job);
  }
  return { bytes: await job, cached: false };
}
