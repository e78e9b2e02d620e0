/**
 * Request bodies and response shapes shared by every area.
 * Text entries are exact: what is written reads back byte for byte.
 */
import { badRequest, HttpError, tooLarge, unsupportedType } from './errors';
import { ASSET_TYPES, checkUpload, type AssetType } from './sniff';

export const KiB = 1024;
export const MiB = 1024 * KiB;
/** Default cap on any request body that is not a declared upload. */
export const DEFAULT_BODY_LIMIT = 1 * MiB;

export type NvmType = 'dir' | 'file';

/**
 * Headers of every answer that serves bytes a user stored (document and mail assets, job
 * code files, run outputs, group pictures): the browser never sniffs another type, and the
 * bytes opened in a tab are a sandboxed document with nothing allowed (no script, no
 * same-origin, no forms): an uploaded HTML or SVG file cannot act in the API's origin.
 * Inline styles, data: images and fonts stay allowed so that an SVG still draws.
 */
export const USER_BYTES_HEADERS: Readonly<Record<'X-Content-Type-Options' | 'Content-Security-Policy', string>> =
  Object.freeze({
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:; sandbox",
  });

export function textResponse(body: string, init: ResponseInit & { nvmType?: NvmType } = {}): Response {
  const headers = new Headers(init.headers);
  headers.set('Content-Type', 'text/plain; charset=utf-8');
  headers.set('X-NVM-Type', init.nvmType ?? 'file');
  return new Response(body, { status: init.status ?? 200, headers });
}

export function jsonResponse(body: unknown, init: ResponseInit & { nvmType?: NvmType } = {}): Response {
  const headers = new Headers(init.headers);
  headers.set('Content-Type', 'application/json');
  if (init.nvmType) headers.set('X-NVM-Type', init.nvmType);
  return new Response(JSON.stringify(body), { status: init.status ?? 200, headers });
}

export function noContent(headers?: HeadersInit): Response {
  return new Response(null, { status: 204, headers });
}

export function mediaType(req: Request): string {
  return (req.headers.get('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
}

/**
 * Reads the body (of a request, or of a response the platform fetched) as bytes, counting
 * the stream and refusing more than `limit` before buffering it all. The 413
 * says `tooBig` when given: what is limited, in the words of the route (`a comment is at most ...`).
 */
export async function readBytes(
  req: Pick<Request, 'headers' | 'body'>,
  limit: number,
  tooBig = `body too large: at most ${limit} bytes`,
): Promise<Uint8Array> {
  const declared = Number(req.headers.get('Content-Length') ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(tooBig);
  if (!req.body) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(tooBig);
    }
    chunks.push(value);
  }
  return concatBytes(chunks, size);
}

/** Chunks of a stream as one array (`size`: their total length). */
export function concatBytes(chunks: Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A text/plain body, decoded as UTF-8. Form-encoded and other types answer 415. */
export async function readText(req: Request, limit = DEFAULT_BODY_LIMIT, tooBig?: string): Promise<string> {
  const type = mediaType(req);
  if (type !== 'text/plain') {
    throw unsupportedType(
      type === 'application/x-www-form-urlencoded'
        ? 'form-urlencoded bodies are not accepted: send the value with Content-Type: text/plain'
        : `expected Content-Type: text/plain, got ${type || 'none'}`,
    );
  }
  const bytes = await readBytes(req, limit, tooBig);
  try {
    return utf8.decode(bytes);
  } catch {
    throw badRequest('body is not valid UTF-8 text');
  }
}

/** A JSON body (application/json). Malformed JSON answers 400. */
export async function readJson(req: Request, limit = DEFAULT_BODY_LIMIT): Promise<unknown> {
  const type = mediaType(req);
  if (type !== 'application/json')
    throw unsupportedType(`expected Content-Type: application/json, got ${type || 'none'}`);
  const bytes = await readBytes(req, limit);
  try {
    return JSON.parse(utf8.decode(bytes));
  } catch {
    throw badRequest('body is not valid JSON');
  }
}

/** True when the client asked for JSON (Accept: application/json) rather than text. */
export function wantsJson(req: Request): boolean {
  return (req.headers.get('Accept') ?? '').toLowerCase().includes('application/json');
}

/** A text/plain body that must read `yes` or `no` (options, invite answers). */
export async function readYesNo(req: Request): Promise<boolean> {
  const value = await readText(req, 16);
  if (value !== 'yes' && value !== 'no') throw badRequest(`expected yes or no, got '${value.slice(0, 16)}'`);
  return value === 'yes';
}

/**
 * An uploaded file (asset): at most `limit` bytes (413 that names `what`), declared as one
 * of `allowed`, and confirmed by its bytes (415 for a type not allowed, 400 on mismatch).
 */
export async function readUpload(
  req: Request,
  limit: number,
  what: string,
  allowed: readonly AssetType[] = ASSET_TYPES,
): Promise<{ bytes: Uint8Array; type: AssetType }> {
  const bytes = await readBytes(req, limit, `${what} are limited to ${limit / MiB} MiB (${limit} bytes)`);
  const sniffed = checkUpload(req.headers.get('Content-Type') ?? '', bytes, allowed);
  if (!sniffed.ok) throw new HttpError(sniffed.status, sniffed.message);
  return { bytes, type: sniffed.type };
}
