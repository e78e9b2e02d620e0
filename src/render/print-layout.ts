/**
 * A built page opened in a browser in print layout and cut into its sheets, what the PDF
 * and PPTX renderers both start from (so PDF pages and slides are the same boxes). Runs in
 * the browser isolate (isolates/browser.ts).
 */
import type { BrowserWorker, Page } from '@cloudflare/puppeteer';
import { A4_SHEET, geometry, type DocType, type Geometry } from '../markup/themes';
import { withBrowser, withStaticPage } from './browser-sessions';
import SHEETS_SCRIPT from './sheets.browser.js';

/** Viewport height when the type has no fixed page height (and fallback slide height). */
export const SHEET_VIEW_HEIGHT = geometry('doc').heightPx;

/** What a render prints of a built page (markup/page.ts BuiltPage): what crosses into the isolate. */
export interface PrintPage {
  html: string;
  type: DocType;
  /** The PDF's and the deck's title. */
  title: string;
  /** The theme's background (`#rrggbb`): the slides' background. */
  bg: string;
}

/** One render of a page: what the renderers get. */
export interface RenderRun {
  /** The BROWSER binding to drive, and how long an idle session is kept for reuse (0: none). */
  browser: BrowserWorker;
  keepAliveMs: number;
  page: PrintPage;
  signal: AbortSignal;
  maxPages: number;
}

/** What a renderer answers. */
export interface Rendered {
  bytes: Uint8Array<ArrayBuffer>;
  pages: number;
  /** Whether an idle browser session was reused or a new one started. */
  session?: 'reused' | 'new';
}

/** The render would produce more pages than `RenderLimits.maxPages`. */
export class TooManyPages extends Error {}

/** Opens the page in print layout, cut into its sheets; `fn` gets the page and each sheet's text. */
export async function withSheets<T>(
  run: RenderRun,
  viewport: { width: number; height: number; deviceScaleFactor?: number },
  fn: (p: Page, texts: string[]) => Promise<T>,
): Promise<{ value: T; session: 'reused' | 'new' }> {
  return withBrowser(run.browser, run.keepAliveMs, run.signal, async (browser) => {
    return withStaticPage(browser, viewport, run.page.html, async (page) => {
      // PDF and screenshots both see the print layout, so pages and slides are the same boxes.
      await page.emulateMediaType('print');
      // A string, not a function: the bundler may rewrite function source.
      const laid = JSON.parse(String(await page.evaluate(sheetScript(run.page.type, run.maxPages)))) as {
        texts?: string[];
        over?: true;
      };
      if (laid.over || !laid.texts) throw new TooManyPages();
      return fn(page, laid.texts);
    });
  });
}

/**
 * In-page script that lays the document out in sheets and answers JSON `{texts}` (each
 * sheet's text, in order) or `{over: true}` past `maxPages` sheets: sheets.browser.js
 * called with A4's height (doc/docs paginate, pres keeps a slide per section); blog/web,
 * which have no page height, are one page.
 */
export function sheetScript(type: DocType, maxPages: number): string {
  if (geometry(type).heightPx === 0)
    return `JSON.stringify({texts: [document.querySelector('main.document').innerText]})`;
  const paginate = type !== 'pres';
  return `(${SHEETS_SCRIPT.trim().replace(/;$/, '')})(${A4_SHEET.height}, ${maxPages}, ${paginate})`;
}

/** Height of the print layout in CSS px (continuous types: the one PDF page and the one slide). */
export async function printHeight(page: Page): Promise<number> {
  const h = Number(await page.evaluate('Math.ceil(document.documentElement.scrollHeight)'));
  return Number.isFinite(h) && h > 0 ? h : 1;
}

/** Viewport of the print layout: a sheet's width, so screen px and printed px lay out alike. */
export function printViewport(g: Geometry, deviceScaleFactor = 1) {
  return { width: g.widthPx, height: g.heightPx || SHEET_VIEW_HEIGHT, deviceScaleFactor };
}
