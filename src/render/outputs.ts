/**
 * PDF and PPTX outputs, printed by Browser Rendering (`@cloudflare/puppeteer` over the
 * BROWSER binding) and cached in R2 under the document's blob prefix, keyed by a hash of
 * the complete page (content, variables, theme, type, custom CSS and inlined assets all
 * end up in it) and the renderer version. A change of any input is a new key: the next
 * request renders again and the older output is removed. Renders and failures are logged.
 */
import puppeteer, { type Browser, type Page } from '@cloudflare/puppeteer';
import PptxGenJS from 'pptxgenjs';
import { sha256Hex } from '../core/crypto';
import { blobPrefix } from '../core/entries';
import { HttpError } from '../core/errors';
import { appendLog } from '../core/log';
import type { ResourceCtx } from '../core/resources';
import type { BuiltPage } from './page';
import { geometry, type Geometry } from './themes';

/** Bump when the output of the same page changes (layout, renderer options). */
export const RENDERER_VERSION = 'render-1';

export type OutputName = 'doc.pdf' | 'doc.pptx';

export const OUTPUT_TYPES: Record<OutputName, string> = {
  'doc.pdf': 'application/pdf',
  'doc.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

/** Longest a browser step may take before the render fails. */
const STEP_TIMEOUT_MS = 30_000;
/** Tallest slide PowerPoint allows (56 in) in CSS px: continuous pages are cut there in the PPTX image. */
const MAX_SLIDE_PX = 56 * 96;

export interface Rendered {
  bytes: Uint8Array<ArrayBuffer>;
  pages: number;
  /** Whether an idle browser session was reused or a new one started. */
  session?: 'reused' | 'new';
}

export function outputKey(resourceId: number, name: OutputName, hash: string): string {
  return `${blobPrefix(resourceId)}render/${name}/${hash}`;
}

export async function outputHash(name: OutputName, page: BuiltPage): Promise<string> {
  return sha256Hex(`${RENDERER_VERSION}\n${name}\n${page.type}\n${page.html}`);
}

/** Sessions this isolate released (most recent last): the first candidates for reuse. */
const released: string[] = [];
const MAX_RELEASED = 4;

/**
 * How long an idle browser session is kept for reuse (the `BROWSER_KEEP_ALIVE_MS` var,
 * at most Browser Rendering's 10 minutes). Unset or 0: every render starts a browser and
 * closes it (nothing outlives the request; the local default).
 */
export function keepAliveMs(env: Env): number {
  const v = Number(env.BROWSER_KEEP_ALIVE_MS ?? 0);
  return Number.isFinite(v) && v > 0 ? Math.min(v, 600_000) : 0;
}

async function connectTo(env: Env, ids: string[]): Promise<Browser | null> {
  for (const id of ids) {
    try {
      return await puppeteer.connect(env.BROWSER, id);
    } catch {
      // taken by another render, or gone: try the next one
    }
  }
  return null;
}

/**
 * A browser session for one render. With a keep-alive configured: a session this isolate
 * released, else an idle kept-alive one, else a new one; afterwards it is released with
 * disconnect (up to a few per isolate; others are closed). Without: launch, then close.
 */
async function withBrowser<T>(env: Env, fn: (b: Browser) => Promise<T>): Promise<{ value: T; session: 'reused' | 'new' }> {
  const keepAlive = keepAliveMs(env);
  let browser: Browser | null = null;
  if (keepAlive) {
    browser = await connectTo(env, released.splice(0).reverse());
    if (!browser) {
      try {
        const idle = (await puppeteer.sessions(env.BROWSER)).filter((s) => !s.connectionId).map((s) => s.sessionId);
        browser = await connectTo(env, idle);
      } catch {
        // session listing unavailable: launch
      }
    }
  }
  const session = browser ? 'reused' : 'new';
  browser ??= await puppeteer.launch(env.BROWSER, keepAlive ? { keep_alive: keepAlive } : undefined);
  let healthy = false;
  try {
    const value = await fn(browser);
    healthy = true;
    return { value, session };
  } finally {
    try {
      if (keepAlive && healthy && released.length < MAX_RELEASED) {
        const id = browser.sessionId();
        browser.disconnect();
        released.push(id);
      } else await browser.close();
    } catch {
      // already gone
    }
  }
}

async function withPage<T>(
  env: Env,
  built: BuiltPage,
  viewport: { width: number; height: number; deviceScaleFactor?: number },
  fn: (p: Page) => Promise<T>,
): Promise<{ value: T; session: 'reused' | 'new' }> {
  return withBrowser(env, async (browser) => {
    const page = await browser.newPage();
    try {
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      await page.setJavaScriptEnabled(false);
      await page.setViewport(viewport);
      await page.setContent(built.html, { waitUntil: 'load', timeout: STEP_TIMEOUT_MS });
      return await fn(page);
    } finally {
      await page.close().catch(() => undefined);
    }
  });
}

/** Counts the pages of a PDF (its /Type /Page objects). */
export function pdfPageCount(pdf: Uint8Array): number {
  const text = new TextDecoder('latin1').decode(pdf);
  return (text.match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length;
}

/** CSS height of the page's content as laid out for print (continuous types). */
async function printHeight(page: Page): Promise<number> {
  await page.emulateMediaType('print');
  // A string, not a function: the bundler may rewrite function source.
  const h = Number(await page.evaluate('Math.ceil(document.documentElement.scrollHeight)'));
  await page.emulateMediaType('screen');
  return Number.isFinite(h) && h > 0 ? h : 1;
}

export async function renderPdf(env: Env, built: BuiltPage): Promise<Rendered> {
  const g = geometry(built.type);
  const flow = g.heightPx === 0;
  const { value: pdf, session } = await withPage(env, built, { width: g.widthPx, height: g.heightPx || 1123 }, async (page) =>
    flow
      ? await page.pdf({ width: `${g.widthPx}px`, height: `${(await printHeight(page)) + 2}px`, printBackground: true, pageRanges: '1' })
      : await page.pdf({ ...(built.type === 'pres' ? { width: `${g.widthIn}in`, height: `${g.heightIn}in` } : { format: 'a4' as const }), printBackground: true, preferCSSPageSize: true }),
  );
  const bytes = new Uint8Array(pdf);
  return { bytes, pages: pdfPageCount(bytes), session };
}

export function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** Where an image of w x h px goes on a slide of the geometry, in inches (fit and centred). */
export function fitImage(g: { widthIn: number; heightIn: number }, w: number, h: number): { x: number; y: number; w: number; h: number } {
  const slide = g.widthIn / g.heightIn;
  const img = w / h;
  const fw = img >= slide ? g.widthIn : g.heightIn * img;
  const fh = img >= slide ? g.widthIn / img : g.heightIn;
  return { x: (g.widthIn - fw) / 2, y: (g.heightIn - fh) / 2, w: fw, h: fh };
}

interface Shot {
  png: Uint8Array;
  width: number;
  height: number;
}

async function screenshots(page: Page, flow: boolean): Promise<Shot[]> {
  const shots: Shot[] = [];
  const targets = flow ? await page.$$('main.document') : await page.$$('section.page');
  for (const el of targets) {
    const box = await el.boundingBox();
    if (!box) continue;
    const height = Math.min(box.height, MAX_SLIDE_PX);
    const png = await page.screenshot({ type: 'png', captureBeyondViewport: true, clip: { x: box.x, y: box.y, width: box.width, height } });
    shots.push({ png: new Uint8Array(png), width: box.width, height });
  }
  return shots;
}

export async function renderPptx(env: Env, built: BuiltPage, title: string): Promise<Rendered> {
  const g = geometry(built.type);
  const flow = g.heightPx === 0;
  const { value: shots, session } = await withPage(env, built, { width: flow ? g.widthPx : g.widthPx + 48, height: g.heightPx || 1123, deviceScaleFactor: flow ? 1 : 1.5 }, (page) =>
    screenshots(page, flow),
  );
  const slideGeometry: Geometry = flow ? { ...g, heightIn: Math.max(1, (shots[0]?.height ?? 1123) / 96) } : g;
  const pptx = new PptxGenJS();
  pptx.defineLayout({ name: 'DOC', width: slideGeometry.widthIn, height: slideGeometry.heightIn });
  pptx.layout = 'DOC';
  pptx.title = title;
  const texts = flow ? [built.markdown.text] : built.markdown.pageTexts;
  shots.forEach((shot, i) => {
    const slide = pptx.addSlide();
    slide.background = { color: built.theme.bg.replace('#', '') };
    slide.addImage({ data: `image/png;base64,${toBase64(shot.png)}`, ...fitImage(slideGeometry, shot.width, shot.height) });
    const notes = texts[i] ?? '';
    if (notes) slide.addNotes(notes);
  });
  const bytes = (await pptx.write({ outputType: 'uint8array' })) as Uint8Array<ArrayBuffer>;
  return { bytes, pages: shots.length, session };
}

const inflight = new Map<string, Promise<Rendered>>();

/**
 * The cached output for this exact page, or a fresh render stored for next time.
 * Concurrent requests for the same output in one isolate share one render.
 */
export async function cachedOutput(rc: ResourceCtx, name: OutputName, built: BuiltPage, hash: string, title: string): Promise<{ bytes: ReadableStream | Uint8Array<ArrayBuffer>; cached: boolean }> {
  const key = outputKey(rc.resource.id, name, hash);
  const hit = await rc.env.BLOBS.get(key);
  if (hit) return { bytes: hit.body, cached: true };
  let job = inflight.get(key);
  if (!job) {
    job = renderAndStore(rc, name, built, key, title).finally(() => inflight.delete(key));
    inflight.set(key, job);
  }
  return { bytes: (await job).bytes, cached: false };
}

async function renderAndStore(rc: ResourceCtx, name: OutputName, built: BuiltPage, key: string, title: string): Promise<Rendered> {
  const started = Date.now();
  let out: Rendered;
  try {
    out = name === 'doc.pdf' ? await renderPdf(rc.env, built) : await renderPptx(rc.env, built, title);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    await appendLog(rc.db, rc.resource.id, `render of ${name} failed: ${reason}`, 'error');
    throw new HttpError(502, `rendering ${name} failed; the document log has the reason`);
  }
  await rc.env.BLOBS.put(key, out.bytes, { httpMetadata: { contentType: OUTPUT_TYPES[name] }, customMetadata: { pages: String(out.pages) } });
  // Older renders of this output are stale now.
  const prefix = `${blobPrefix(rc.resource.id)}render/${name}/`;
  const stale = (await rc.env.BLOBS.list({ prefix })).objects.map((o) => o.key).filter((k) => k !== key);
  if (stale.length) await rc.env.BLOBS.delete(stale);
  const notes = built.unknownTheme ? `; theme '${built.unknownTheme}' is unknown, default used` : '';
  await appendLog(rc.db, rc.resource.id, `rendered ${name}: ${out.pages} ${out.pages === 1 ? 'page' : 'pages'}, type ${built.type}, theme ${built.theme.name}, ${Date.now() - started} ms, ${out.session === 'reused' ? 'browser session reused' : 'new browser session'}${notes}`);
  return out;
}
