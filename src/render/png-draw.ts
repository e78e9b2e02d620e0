/**
 * A plot's SVG drawn as PNG bytes by the browser (Browser Rendering), at twice its size so it
 * stays sharp on high-density screens and in mail programs, which show no SVG. Runs in the
 * browser isolate (isolates/browser.ts); plot-png.ts caches what it draws.
 */
import type { BrowserWorker } from '@cloudflare/puppeteer';
import type { Size } from '../plots/model';
import { withBrowser, withStaticPage } from './browser-sessions';

/** Device pixels per CSS pixel of the PNG. */
const PNG_SCALE = 2;

/** The SVG as the browser's page: nothing but the drawing, on white, at its size. */
function pngPage(svg: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><style>html,body{margin:0;padding:0;background:#fff}svg{display:block}</style></head><body>${svg}</body></html>`;
}

/** Draws `svg` (of `size`) as PNG bytes; an abort of `signal` closes the browser, which fails the draw. */
export async function drawPng(
  browser: BrowserWorker,
  keepAliveMs: number,
  signal: AbortSignal,
  svg: string,
  size: Size,
): Promise<Uint8Array<ArrayBuffer>> {
  const { value } = await withBrowser(browser, keepAliveMs, signal, async (b) => {
    const viewport = { width: size.width, height: size.height, deviceScaleFactor: PNG_SCALE };
    return withStaticPage(b, viewport, pngPage(svg), async (page) => {
      const shot = await page.screenshot({ type: 'png', clip: { x: 0, y: 0, width: size.width, height: size.height } });
      return new Uint8Array(shot);
    });
  });
  return value;
}
