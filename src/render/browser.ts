/**
 * Rendering with a browser, as the Worker asks for it: puppeteer and pptxgenjs (1.3 MB with
 * jszip) run in the browser isolate (core/isolates.ts; the code: isolates/browser.ts), not in
 * the Worker, which mostly serves no render and would compile them at every start. The
 * isolate reaches the BROWSER binding through the Worker's loopback gate (browser-gate.ts),
 * and gets the page as plain data (print-layout.ts PrintPage); what it answers is the
 * output's bytes.
 */
import { env as workerEnv, exports, type WorkerEntrypoint } from 'cloudflare:workers';
import SOURCE from '../../build/browser.isolate.js';
import { isolateEntrypoint } from '../core/isolates';
import type { BuiltPage } from '../markup/page';
import type { Size } from '../plots/model';
import type { PrintPage, Rendered } from './print-layout';

/** What one render is asked to make. */
export interface PrintRun {
  page: PrintPage;
  maxPages: number;
  keepAliveMs: number;
  /** Past it the isolate closes the browser, which fails whatever step is running. */
  deadlineMs: number;
}

/**
 * A render's answer: the output (its bytes as a stream: a deck may pass the 32 MiB of one
 * RPC message), or more pages than `maxPages` once laid out.
 */
export type RenderAnswer =
  ({ ok: true; bytes: ReadableStream<Uint8Array> } & Omit<Rendered, 'bytes'>) | { ok: false; tooManyPages: true };

/** A PNG's answer: the bytes, or the deadline passed first. */
export type PngAnswer = { ok: true; bytes: ReadableStream<Uint8Array> } | { ok: false; timedOut: true };

/**
 * What the browser isolate answers over RPC (isolates/browser.ts implements it). `browser`:
 * a stand-in for Browser Rendering (tests); undefined, the Worker's own BROWSER.
 */
export interface BrowserRenders {
  renderPdf(browser: Stand, run: PrintRun): Promise<RenderAnswer>;
  renderPptx(browser: Stand, run: PrintRun): Promise<RenderAnswer>;
  drawPng(browser: Stand, keepAliveMs: number, deadlineMs: number, svg: string, size: Size): Promise<PngAnswer>;
  /** Closes the sessions the isolate keeps for reuse. */
  closeReleasedSessions(browser: Stand): Promise<void>;
}

/** A stand-in for Browser Rendering, or undefined for the Worker's own binding. */
type Stand = Fetcher | undefined;

interface BrowserEntrypoint extends WorkerEntrypoint, BrowserRenders {}

/** The browser isolate, its BROWSER the Worker's own binding through the loopback gate. */
export const browserIsolate = (env: Env) =>
  isolateEntrypoint<BrowserEntrypoint>(env, 'browser', SOURCE, { BROWSER: exports.BrowserGate({ props: {} }) });

/**
 * The BROWSER the isolate drives for `env`: undefined for the Worker's own binding (the
 * isolate's, through the gate), else the stand-in `env` holds (a test's, handed on over RPC).
 */
export function browserOf(env: Env): Stand {
  return env.BROWSER === workerEnv.BROWSER ? undefined : env.BROWSER;
}

/**
 * How long an idle browser session is kept for reuse (the `BROWSER_KEEP_ALIVE_MS` var,
 * at most Browser Rendering's 10 minutes). Unset or 0: every render starts a browser and
 * closes it (nothing outlives the request; the local default).
 */
export function keepAliveMs(env: Env): number {
  const v = Number(env.BROWSER_KEEP_ALIVE_MS ?? 0);
  return Number.isFinite(v) && v > 0 ? Math.min(v, 600_000) : 0;
}

/** What a render prints of a built page. */
export function printPage(built: BuiltPage): PrintPage {
  return { html: built.html, type: built.type, title: built.title, bg: built.theme.bg };
}

/** Closes the sessions the browser isolate keeps for reuse (tests, and anyone who wants them gone now). */
export function closeReleasedSessions(env: Env): Promise<void> {
  return browserIsolate(env).closeReleasedSessions(browserOf(env));
}
