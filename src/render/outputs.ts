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
import { eq } from 'drizzle-orm';
import { HttpError, notFound } from '../core/errors';
import { appendLog } from '../core/log';
import type { ResourceCtx } from '../core/resource';
import { resources } from '../db/schema';
import type { BuiltPage } from '../markup/page';
import { A4_SHEET, geometry, type DocType, type Geometry } from '../markup/themes';

/** Bump when the output of the same page changes (layout, renderer options). */
export const RENDERER_VERSION = 'render-1';

export type OutputName = 'doc.pdf' | 'doc.pptx';

export const OUTPUT_TYPES: Record<OutputName, string> = {
  'doc.pdf': 'application/pdf',
  'doc.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
};

/** Longest a browser step may take before the render fails. */
const STEP_TIMEOUT_MS = 30_000;
/** Tallest slide PowerPoint allows (56 in) in CSS px: a taller continuous page is scaled down onto it. */
const MAX_SLIDE_PX = 56 * 96;
/** Pages (sheets, slides) one render may produce: bounds browser time and the screenshots a deck holds in memory. */
export const MAX_RENDER_PAGES = 200;
/** Longest a whole render (browser start, layout, print or screenshots) may take. */
export const RENDER_DEADLINE_MS = 60_000;
/** Viewport height when the type has no fixed page height (and fallback slide height). */
const SHEET_VIEW_HEIGHT = geometry('doc').heightPx;
/** Above this many slides a deck is screenshotted at 1x instead of 1.5x (memory). */
const HIDPI_MAX_SLIDES = 40;

export interface RenderLimits {
  maxPages: number;
  deadlineMs: number;
}
const LIMITS: RenderLimits = { maxPages: MAX_RENDER_PAGES, deadlineMs: RENDER_DEADLINE_MS };

/** The render would produce more pages than `RenderLimits.maxPages`. */
class TooManyPages extends Error {}

export interface Rendered {
  bytes: Uint8Array<ArrayBuffer>;
  pages: number;
  /** Whether an idle browser session was reused or a new one started. */
  session?: 'reused' | 'new';
}

export function outputKey(resourceId: number, name: OutputName, hash: string): string {
  return `${blobPrefix(resourceId)}render/${name}/${hash}`;
}

/**
 * The cache key of an output: the renderer version and the page as built in `key` mode
 * (assets named by name and version, not by their bytes: see source.ts).
 */
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

/** Closes the sessions this isolate keeps for reuse (tests, and anyone who wants them gone now). */
export async function closeReleasedSessions(env: Env): Promise<void> {
  for (const id of released.splice(0)) {
    const b = await connectTo(env, [id]);
    await b?.close().catch(() => undefined);
  }
}

/**
 * A browser session for one render. With a keep-alive configured: a session this isolate
 * released, else an idle kept-alive one, else a new one; afterwards it is released with
 * disconnect (up to a few per isolate; others are closed). Without: launch, then close.
 * An abort (the render deadline) closes the browser, which fails whatever step is running.
 */
async function withBrowser<T>(env: Env, signal: AbortSignal, fn: (b: Browser) => Promise<T>): Promise<{ value: T; session: 'reused' | 'new' }> {
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
  const b = browser;
  const abort = () => void b.close().catch(() => undefined);
  if (signal.aborted) abort();
  signal.addEventListener('abort', abort);
  let healthy = false;
  try {
    const value = await fn(b);
    healthy = true;
    return { value, session };
  } finally {
    signal.removeEventListener('abort', abort);
    try {
      if (keepAlive && healthy && released.length < MAX_RELEASED) {
        const id = b.sessionId();
        b.disconnect();
        released.push(id);
      } else await b.close();
    } catch {
      // already gone
    }
  }
}

interface RenderRun {
  env: Env;
  built: BuiltPage;
  signal: AbortSignal;
  maxPages: number;
}

/** Opens the page in print layout, cut into its sheets; `fn` gets the page and each sheet's text. */
async function withSheets<T>(
  run: RenderRun,
  viewport: { width: number; height: number; deviceScaleFactor?: number },
  fn: (p: Page, texts: string[]) => Promise<T>,
): Promise<{ value: T; session: 'reused' | 'new' }> {
  return withBrowser(run.env, run.signal, async (browser) => {
    const page = await browser.newPage();
    try {
      page.setDefaultTimeout(STEP_TIMEOUT_MS);
      await page.setJavaScriptEnabled(false);
      await page.setViewport(viewport);
      await page.setContent(run.built.html, { waitUntil: 'load', timeout: STEP_TIMEOUT_MS });
      // PDF and screenshots both see the print layout, so pages and slides are the same boxes.
      await page.emulateMediaType('print');
      // A string, not a function: the bundler may rewrite function source.
      const laid = JSON.parse(String(await page.evaluate(sheetScript(run.built.type, run.maxPages)))) as { texts?: string[]; over?: true };
      if (laid.over || !laid.texts) throw new TooManyPages();
      return await fn(page, laid.texts);
    } finally {
      await page.close().catch(() => undefined);
    }
  });
}

/**
 * In-page script that lays the document out in sheets and answers JSON `{texts}` (each
 * sheet's text, in order) or `{over: true}` past `maxPages` sheets. doc/docs: each
 * `{{ page }}` section is cut into A4 sheets, moving the top-level blocks that overflow a
 * sheet onto a new one; a single block taller than a sheet is shrunk (CSS zoom, down to a
 * tenth) to fit. pres: a section is a slide (overflow clipped). blog/web: one page.
 */
export function sheetScript(type: DocType, maxPages: number): string {
  if (geometry(type).heightPx === 0) return `JSON.stringify({texts: [document.querySelector('main.document').innerText]})`;
  const paginate = type !== 'pres';
  return `(() => {
  const sel = 'main.document > section.page';
  const sheetHeight = ${A4_SHEET.height}, max = ${maxPages};
  let count = document.querySelectorAll(sel).length;
  if (count > max) return JSON.stringify({over: true});
  for (const first of ${paginate} ? Array.from(document.querySelectorAll(sel)) : []) {
    for (let s = first; s; ) {
      const cs = getComputedStyle(s);
      const padTop = parseFloat(cs.paddingTop) + parseFloat(cs.borderTopWidth);
      const budget = sheetHeight - padTop - parseFloat(cs.paddingBottom) - parseFloat(cs.borderBottomWidth);
      const top = s.getBoundingClientRect().top + padTop;
      const kids = Array.from(s.children);
      let cut = -1;
      for (let i = 0; i < kids.length && cut < 0; i++) {
        const bottom = kids[i].getBoundingClientRect().bottom - top;
        if (bottom <= budget + 0.5) continue;
        if (i > 0) cut = i;
        else kids[i].style.zoom = String(Math.max(0.1, (budget - 1) / bottom));
      }
      if (cut < 0) break;
      if (++count > max) return JSON.stringify({over: true});
      const next = document.createElement('section');
      next.className = 'page';
      next.append(...kids.slice(cut));
      s.after(next);
      s = next;
    }
  }
  return JSON.stringify({texts: Array.from(document.querySelectorAll(sel)).map((s) => s.innerText)});
})()`;
}

/** Counts the pages of a PDF (its /Type /Page objects). */
export function pdfPageCount(pdf: Uint8Array): number {
  const text = new TextDecoder('latin1').decode(pdf);
  return (text.match(/\/Type\s*\/Page(?![a-zA-Z])/g) ?? []).length;
}

/** Height of the print layout in CSS px (continuous types: the one PDF page and the one slide). */
async function printHeight(page: Page): Promise<number> {
  const h = Number(await page.evaluate('Math.ceil(document.documentElement.scrollHeight)'));
  return Number.isFinite(h) && h > 0 ? h : 1;
}

/** Viewport of the print layout: a sheet's width, so screen px and printed px lay out alike. */
function printViewport(g: Geometry, deviceScaleFactor = 1) {
  return { width: g.widthPx, height: g.heightPx || SHEET_VIEW_HEIGHT, deviceScaleFactor };
}

async function renderPdf(run: RenderRun): Promise<Rendered> {
  const g = geometry(run.built.type);
  // Paged types: the page's own @page size, which is the type's (pageSizeCss comes after custom CSS).
  const { value: pdf, session } = await withSheets(run, printViewport(g), async (page) =>
    g.heightPx === 0
      ? await page.pdf({ width: `${g.widthPx}px`, height: `${(await printHeight(page)) + 2}px`, printBackground: true, pageRanges: '1' })
      : await page.pdf({ printBackground: true, preferCSSPageSize: true }),
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
  /** PNG as base64 (the bytes are not kept: a deck of many slides holds only this). */
  png: string;
  /** Size of the captured box in CSS px. */
  width: number;
  height: number;
  text: string;
}

/** One screenshot per sheet (continuous types: the whole page, scaled down to PowerPoint's tallest slide). */
async function screenshots(page: Page, flow: boolean, texts: string[]): Promise<Shot[]> {
  const targets = await page.$$(flow ? 'main.document' : 'main.document > section.page');
  if (targets.length !== texts.length) throw new Error(`layout changed while capturing: ${targets.length} sheets, ${texts.length} texts`);
  if (!flow && targets.length > HIDPI_MAX_SLIDES) await page.setViewport({ ...page.viewport()!, deviceScaleFactor: 1 });
  const shots: Shot[] = [];
  for (const [i, el] of targets.entries()) {
    const box = await el.boundingBox();
    if (!box) throw new Error(`sheet ${i + 1} has no box to capture`);
    const scale = Math.min(1, MAX_SLIDE_PX / box.height);
    const png = await page.screenshot({ type: 'png', captureBeyondViewport: true, clip: { x: box.x, y: box.y, width: box.width, height: box.height, scale } });
    shots.push({ png: toBase64(new Uint8Array(png)), width: box.width, height: box.height, text: texts[i]! });
  }
  return shots;
}

async function renderPptx(run: RenderRun): Promise<Rendered> {
  const { built } = run;
  const g = geometry(built.type);
  const flow = g.heightPx === 0;
  const { value: shots, session } = await withSheets(run, printViewport(g, flow ? 1 : 1.5), (page, texts) => screenshots(page, flow, texts));
  const slideGeometry: Geometry = flow ? { ...g, heightIn: Math.min(MAX_SLIDE_PX, Math.max(96, shots[0]?.height ?? SHEET_VIEW_HEIGHT)) / 96 } : g;
  const pptx = new PptxGenJS();
  pptx.defineLayout({ name: 'DOC', width: slideGeometry.widthIn, height: slideGeometry.heightIn });
  pptx.layout = 'DOC';
  pptx.title = built.title;
  for (const shot of shots) {
    const slide = pptx.addSlide();
    slide.background = { color: built.theme.bg.replace('#', '') };
    slide.addImage({ data: `image/png;base64,${shot.png}`, ...fitImage(slideGeometry, shot.width, shot.height) });
    if (shot.text.trim()) slide.addNotes(shot.text.trim());
  }
  const bytes = (await pptx.write({ outputType: 'uint8array' })) as Uint8Array<ArrayBuffer>;
  return { bytes, pages: shots.length, session };
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
    job = (async () => renderAndStore(rc, name, await page(), key, { ...LIMITS, ...limits }))().finally(() => inflight.delete(key));
    inflight.set(key, job);
  }
  return { bytes: (await job).bytes, cached: false };
}

/** Runs the render under the deadline; past it the browser is closed and the render fails. */
async function renderWithin(rc: ResourceCtx, name: OutputName, built: BuiltPage, limits: RenderLimits): Promise<Rendered> {
  const ctl = new AbortController();
  const run: RenderRun = { env: rc.env, built, signal: ctl.signal, maxPages: limits.maxPages };
  const work = name === 'doc.pdf' ? renderPdf(run) : renderPptx(run);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      ctl.abort();
      reject(new HttpError(504, `rendering ${name} took longer than ${limits.deadlineMs} ms`));
    }, limits.deadlineMs);
  });
  work.catch(() => undefined); // settles after the deadline answer: nothing waits for it
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function renderAndStore(rc: ResourceCtx, name: OutputName, built: BuiltPage, key: string, limits: RenderLimits): Promise<Rendered> {
  const started = Date.now();
  const refuse = async (what: string) => {
    await appendLog(rc.db, rc.resource.id, `render of ${name} refused: ${what}, at most ${limits.maxPages} per render`, 'error');
    return new HttpError(413, `the document has ${what}; a render makes at most ${limits.maxPages} pages`);
  };
  // Known before any browser work: the {{ page }} pages of a paged type.
  const marked = built.markdown.pages.length;
  if (geometry(built.type).heightPx && marked > limits.maxPages) throw await refuse(`${marked} pages`);
  let out: Rendered;
  try {
    out = await renderWithin(rc, name, built, limits);
  } catch (err) {
    if (err instanceof TooManyPages) throw await refuse(`more than ${limits.maxPages} ${limits.maxPages === 1 ? 'page' : 'pages'} once laid out`);
    if (err instanceof HttpError && err.status === 504) {
      await appendLog(rc.db, rc.resource.id, `render of ${name} timed out after ${limits.deadlineMs} ms`, 'error');
      throw err;
    }
    const reason = err instanceof Error ? err.message : String(err);
    await appendLog(rc.db, rc.resource.id, `render of ${name} failed: ${reason}`, 'error');
    throw new HttpError(502, `rendering ${name} failed; the document log has the reason`);
  }
  await rc.env.BLOBS.put(key, out.bytes, { httpMetadata: { contentType: OUTPUT_TYPES[name] }, customMetadata: { pages: String(out.pages) } });
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
