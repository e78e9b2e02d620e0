/**
 * The browser isolate (src/render/browser.ts loads it with the Worker Loader): the renders
 * that drive Browser Rendering with puppeteer, and the deck pptxgenjs builds, as RPC methods.
 * Each call drives the BROWSER binding the Worker hands the isolate (or a stand-in the call
 * names) and has a deadline, past which the browser is closed.
 * Bundled with its libraries by scripts/isolates.mjs into build/browser.isolate.js, which the
 * Worker imports as text.
 */
import { WorkerEntrypoint } from 'cloudflare:workers';
import { streamOf } from '../src/core/isolates';
import type { BrowserRenders, PngAnswer, PrintRun, RenderAnswer } from '../src/render/browser';
import { closeReleasedSessions } from '../src/render/browser-sessions';
import { byDeadline } from '../src/render/deadline';
import { renderPdf } from '../src/render/pdf';
import { drawPng } from '../src/render/png-draw';
import { renderPptx } from '../src/render/pptx';
import { TooManyPages, type Rendered, type RenderRun } from '../src/render/print-layout';
import type { Size } from '../src/plots/model';

/** The deadline passed before the work ended. */
class DeadlinePassed extends Error {}

/**
 * Runs `fn` with a signal that aborts at `deadlineMs` (which closes the browser) and rejects
 * with DeadlinePassed then, whether or not `fn` ends: a browser that never answers (a launch
 * that hangs, before there is a browser to close) cannot hold the call past its deadline.
 */
function within<T>(deadlineMs: number, fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const ctl = new AbortController();
  return byDeadline(fn(ctl.signal), deadlineMs, () => {
    ctl.abort();
    return new DeadlinePassed();
  });
}

async function render(
  renderer: (run: RenderRun) => Promise<Rendered>,
  browser: Fetcher,
  run: PrintRun,
): Promise<RenderAnswer> {
  try {
    const out = await within(run.deadlineMs, (signal) =>
      renderer({ browser, keepAliveMs: run.keepAliveMs, page: run.page, signal, maxPages: run.maxPages }),
    );
    return { ok: true, ...out, bytes: streamOf(out.bytes) };
  } catch (err) {
    if (err instanceof TooManyPages) return { ok: false, tooManyPages: true };
    throw err;
  }
}

export default class BrowserIsolate extends WorkerEntrypoint<{ BROWSER: Fetcher }> implements BrowserRenders {
  /** The stand-in a call names, else the BROWSER the Worker handed the isolate. */
  #browser(stand: Fetcher | undefined): Fetcher {
    return stand ?? this.env.BROWSER;
  }
  renderPdf(browser: Fetcher | undefined, run: PrintRun) {
    return render(renderPdf, this.#browser(browser), run);
  }
  renderPptx(browser: Fetcher | undefined, run: PrintRun) {
    return render(renderPptx, this.#browser(browser), run);
  }
  async drawPng(
    browser: Fetcher | undefined,
    keepAliveMs: number,
    deadlineMs: number,
    svg: string,
    size: Size,
  ): Promise<PngAnswer> {
    try {
      const bytes = await within(deadlineMs, (signal) =>
        drawPng(this.#browser(browser), keepAliveMs, signal, svg, size),
      );
      return { ok: true, bytes: streamOf(bytes) };
    } catch (err) {
      if (err instanceof DeadlinePassed) return { ok: false, timedOut: true };
      throw err;
    }
  }
  closeReleasedSessions(browser: Fetcher | undefined) {
    return closeReleasedSessions(this.#browser(browser));
  }
}
