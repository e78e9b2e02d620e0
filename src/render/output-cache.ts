/**
 * A document's PDF and PPTX outputs, cached in R2 under the document's blob prefix, keyed
 * by a hash of the complete page (content, variables, theme, type, custom CSS and inlined
 * assets all end up in it) and the renderer version. A change of any input is a new key:
 * the next request renders again (pdf.ts, pptx.ts, under the render limits) and the older
 * output is removed. Renders and failures are logged.
 */
import { eq } from 'drizzle-orm';
import { sha256Hex } from '../core/crypto';
import { bytesOf } from '../core/isolates';
import { blobPrefix } from '../core/entries';
import { HttpError, notFound } from '../core/errors';
import { appendLog } from '../core/log';
import type { ResourceCtx } from '../core/resource';
import { resources } from '../db/schema';
import type { BuiltPage } from '../markup/page';
import { geometry } from '../markup/themes';
import { browserIsolate, browserOf, keepAliveMs, printPage, type PrintRun, type RenderAnswer } from './browser';
import { byDeadline } from './deadline';
import type { Rendered } from './print-layout';

/** Bump when the output of the same page changes (layout, renderer options). */
const RENDERER_VERSION = 'render-1';

export type OutputName = 'doc.pdf' | 'doc.pptx';

export const OUTPUT_TYPES: Record<OutputName, string> = {
  'doc.pdf': 'application/pdf',
  'doc.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

/** Pages (sheets, slides) one render may produce: bounds browser time and the screenshots a deck holds in memory. */
export const MAX_RENDER_PAGES = 200;
/** Longest a whole render (browser start, layout, print or screenshots) may take. */
export const RENDER_DEADLINE_MS = 60_000;

export interface RenderLimits {
  maxPages: number;
  deadlineMs: number;
}
const LIMITS: RenderLimits = { maxPages: MAX_RENDER_PAGES, deadlineMs: RENDER_DEADLINE_MS };

function outputKey(resourceId: number, name: OutputName, hash: string): string {
  return `${blobPrefix(resourceId)}render/${name}/${hash}`;
}

/**
 * The cache key of an output: the renderer version and the page as built in `key` mode
 * (assets named by name and version, not by their bytes: see source.ts).
 */
export async function outputHash(name: OutputName, page: BuiltPage): Promise<string> {
  return sha256Hex(`${RENDERER_VERSION}\n${name}\n${page.type}\n${page.html}`);
}

const inflight = new Map<string, Promise<Rendered>>();

/**
 * The cached output for this exact page, or a fresh render stored for next time.
 * Concurrent requests for the same output in one isolate share one render.
 * `page` builds the page with its assets embedded (only needed on a miss).
 */
export async function cachedOutput(
  rc: ResourceCtx,
  name: OutputName,
  page: () => Promise<BuiltPage>,
  hash: string,
  limits: Partial<RenderLimits> = {},
): Promise<{ bytes: ReadableStream | Uint8Array<ArrayBuffer>; cached: boolean }> {
  const key = outputKey(rc.resource.id, name, hash);
  const hit = await rc.env.BLOBS.get(key);
  if (hit) return { bytes: hit.body, cached: true };
  let job = inflight.get(key);
  if (!job) {
    job = (async () => renderAndStore(rc, name, await page(), key, { ...LIMITS, ...limits }))().finally(() =>
      inflight.delete(key),
    );
    inflight.set(key, job);
  }
  return { bytes: (await job).bytes, cached: false };
}

/**
 * Runs the render (in the browser isolate: browser.ts) under the deadline; past it the answer
 * is a 504 and the isolate closes the browser, which fails the render.
 */
async function renderWithin(
  rc: ResourceCtx,
  name: OutputName,
  built: BuiltPage,
  limits: RenderLimits,
): Promise<RenderAnswer> {
  const run: PrintRun = {
    page: printPage(built),
    maxPages: limits.maxPages,
    keepAliveMs: keepAliveMs(rc.env),
    deadlineMs: limits.deadlineMs,
  };
  const isolate = browserIsolate(rc.env);
  const browser = browserOf(rc.env);
  const work: Promise<RenderAnswer> =
    name === 'doc.pdf' ? isolate.renderPdf(browser, run) : isolate.renderPptx(browser, run);
  return byDeadline(
    work,
    limits.deadlineMs,
    () => new HttpError(504, `rendering ${name} took longer than ${limits.deadlineMs} ms`),
  );
}

async function renderAndStore(
  rc: ResourceCtx,
  name: OutputName,
  built: BuiltPage,
  key: string,
  limits: RenderLimits,
): Promise<Rendered> {
  const started = Date.now();
  const refuse = async (what: string) => {
    await appendLog(
      rc.db,
      rc.resource.id,
      `render of ${name} refused: ${what}, at most ${limits.maxPages} per render`,
      'error',
    );
    return new HttpError(413, `the document has ${what}; a render makes at most ${limits.maxPages} pages`);
  };
  // Known before any browser work: the {{ page }} pages of a paged type.
  const marked = built.markdown.pages.length;
  if (geometry(built.type).heightPx && marked > limits.maxPages) throw await refuse(`${marked} pages`);
  let answer: RenderAnswer;
  try {
    answer = await renderWithin(rc, name, built, limits);
  } catch (err) {
    if (err instanceof HttpError && err.status === 504) {
      await appendLog(rc.db, rc.resource.id, `render of ${name} timed out after ${limits.deadlineMs} ms`, 'error');
      throw err;
    }
    const reason = err instanceof Error ? err.message : String(err);
    await appendLog(rc.db, rc.resource.id, `render of ${name} failed: ${reason}`, 'error');
    throw new HttpError(502, `rendering ${name} failed; the document log has the reason`);
  }
  if (!answer.ok)
    throw await refuse(`more than ${limits.maxPages} ${limits.maxPages === 1 ? 'page' : 'pages'} once laid out`);
  const out: Rendered = { ...answer, bytes: await bytesOf(answer.bytes) };
  await rc.env.BLOBS.put(key, out.bytes, {
    httpMetadata: { contentType: OUTPUT_TYPES[name] },
    customMetadata: { pages: String(out.pages) },
  });
  // The document may have been deleted while it rendered: its blob sweep may have run
  // before this put, so take the output back and answer 404 (a delete after this check
  // sweeps the output itself, and its log line then fails as a 404 in the core).
  if (!(await resourceExists(rc))) {
    await rc.env.BLOBS.delete(key);
    throw notFound(`${rc.resource.name} was deleted while ${name} rendered`);
  }
  // Older renders of this output are stale now.
  const prefix = `${blobPrefix(rc.resource.id)}render/${name}/`;
  const stale = (await rc.env.BLOBS.list({ prefix })).objects.map((o) => o.key).filter((k) => k !== key);
  if (stale.length) await rc.env.BLOBS.delete(stale);
  const notes = built.unknownTheme ? `; theme '${built.unknownTheme}' is unknown, default used` : '';
  await appendLog(
    rc.db,
    rc.resource.id,
    `rendered ${name}: ${out.pages} ${out.pages === 1 ? 'page' : 'pages'}, type ${built.type}, theme ${built.theme.name}, ${Date.now() - started} ms, ${out.session === 'reused' ? 'browser session reused' : 'new browser session'}${notes}`,
  );
  return out;
}

async function resourceExists(rc: ResourceCtx): Promise<boolean> {
  return !!(await rc.db.select({ id: resources.id }).from(resources).where(eq(resources.id, rc.resource.id)).get());
}
