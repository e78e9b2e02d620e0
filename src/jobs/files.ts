/** Files that flow through a run: the trigger's input, each step's output, the bundle the caller gets. */
import { badRequest, unsupportedType } from '../core/errors';
import { MiB, mediaType, readBytes } from '../core/http';
import { bytesOf, streamOf } from '../core/isolates';
import { libraries } from '../core/libraries';

/** A file as it crosses RPC boundaries (structured-clonable). */
export interface RunFile {
  name: string;
  type: string;
  data: ArrayBuffer;
}

/** The most a data trigger may upload. */
export const INPUT_LIMIT = 25 * MiB;

const enc = new TextEncoder();
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function textFile(name: string, text: string, type = 'text/plain; charset=utf-8'): RunFile {
  return { name, type, data: enc.encode(text).buffer as ArrayBuffer };
}

/**
 * A file name safe to keep: its last path segment without control characters (C0, DEL,
 * C1, line separators), double quotes and bidirectional controls (which make
 * `invoice<RLO>fdp.exe` read as `invoiceexe.pdf`).
 */
export function cleanName(name: string, fallback: string): string {
  const base = name
    .split(/[\\/]/)
    .pop()!
    // oxlint-disable-next-line no-control-regex -- control characters are what this strips from a file name
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069"]/g, '')
    .trim();
  return base && base !== '.' && base !== '..' ? base.slice(0, 200) : fallback;
}

/** Names must be unique within a set of files: later duplicates get -2, -3, ... before the extension. */
export function uniqueNames(files: RunFile[]): RunFile[] {
  const seen = new Set<string>();
  return files.map((f) => {
    let name = f.name;
    for (let i = 2; seen.has(name); i++) {
      const dot = f.name.lastIndexOf('.');
      name = dot > 0 ? `${f.name.slice(0, dot)}-${i}${f.name.slice(dot)}` : `${f.name}-${i}`;
    }
    seen.add(name);
    return name === f.name ? f : { ...f, name };
  });
}

/** Reads a multipart body's parts into files (file parts keep their name; text fields become <field>.txt). */
async function filesFromForm(form: FormData): Promise<RunFile[]> {
  const out: RunFile[] = [];
  for (const [field, value] of form.entries()) {
    if (typeof value === 'string')
      out.push(textFile(cleanName(field, 'field') + (field.includes('.') ? '' : '.txt'), value));
    else
      out.push({
        name: cleanName(value.name, cleanName(field, 'file')),
        type: value.type || 'application/octet-stream',
        data: await value.arrayBuffer(),
      });
  }
  return uniqueNames(out);
}

/**
 * POST data takes `application/json` (any charset) or `multipart/form-data` only: any other
 * Content-Type answers 415 naming both, before the body is read or a run recorded. A
 * request with neither a Content-Type nor a body is an empty body (400).
 */
export function checkTriggerType(req: Request): void {
  const type = mediaType(req);
  if (type === 'application/json' || type === 'multipart/form-data') return;
  if (!type && (req.body === null || req.headers.get('Content-Length') === '0')) return;
  throw unsupportedType(
    `POST data takes Content-Type application/json (a JSON document) or multipart/form-data (files), got ${type || 'none'}`,
  );
}

/**
 * The input of a data trigger: multipart → one file per part; a JSON body → input.json.
 * An empty or non-JSON body is a 400.
 */
export async function readTriggerInput(req: Request): Promise<RunFile[]> {
  checkTriggerType(req);
  const type = mediaType(req);
  const bytes = await readBytes(req, INPUT_LIMIT);
  if (type === 'multipart/form-data') {
    let form: FormData;
    try {
      form = await new Response(bytes as Uint8Array<ArrayBuffer>, {
        headers: { 'Content-Type': req.headers.get('Content-Type')! },
      }).formData();
    } catch {
      throw badRequest('malformed multipart/form-data body');
    }
    const files = await filesFromForm(form);
    if (!files.length) throw badRequest('the multipart body holds no parts');
    return files;
  }
  const problem = jsonProblem(bytes);
  if (problem) throw badRequest(`${problem}: send a JSON document (application/json) or files (multipart/form-data)`);
  return [{ name: 'input.json', type: 'application/json', data: bytes.slice().buffer as ArrayBuffer }];
}

/** Why bytes are not a JSON document (pure), or nothing. */
export function jsonProblem(bytes: Uint8Array): string | void {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return 'the body is not UTF-8 text, so not a JSON document';
  }
  if (!text.trim()) return 'the body is empty';
  try {
    JSON.parse(text);
  } catch {
    return 'the body is not a JSON document';
  }
}

export interface Bundle {
  filename: string;
  type: string;
  data: ArrayBuffer;
}

/**
 * What the caller downloads: nothing, the single file as it is, or several files as one zip
 * (fflate, in the libraries isolate: core/libraries.ts).
 */
export async function bundle(env: Env, files: RunFile[], zipName = 'output.zip'): Promise<Bundle | null> {
  if (!files.length) return null;
  if (files.length === 1) return { filename: files[0]!.name, type: files[0]!.type, data: files[0]!.data };
  const entries: Record<string, ReadableStream<Uint8Array>> = {};
  for (const f of uniqueNames(files)) entries[f.name] = streamOf(new Uint8Array(f.data));
  const zipped = await bytesOf(await libraries(env).zip(entries));
  return { filename: zipName, type: 'application/zip', data: zipped.buffer };
}

/** Content-Disposition for a download, with an RFC 5987 name for non-ASCII filenames. */
function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename)}`;
}

export function bundleResponse(b: Bundle, headers: Record<string, string> = {}): Response {
  return new Response(b.data, {
    status: 200,
    headers: {
      'Content-Type': b.type,
      'Content-Disposition': contentDisposition(b.filename),
      'X-NVM-Type': 'file',
      ...headers,
    },
  });
}

/** The most read from an https:// step's answer (its body, all multipart parts together). */
export const STEP_ANSWER_LIMIT = 32 * MiB;

/**
 * The files an https:// step answered: multipart parts, or the body as one file. The body
 * is counted as it streams (never `arrayBuffer()`/`formData()` unbounded): more than
 * `maxBytes` throws a 413 HttpError saying `tooBig`.
 */
export async function filesFromResponse(
  res: Response,
  {
    maxBytes = STEP_ANSWER_LIMIT,
    tooBig,
    fallback = 'output',
  }: { maxBytes?: number; tooBig?: string; fallback?: string } = {},
): Promise<RunFile[]> {
  const type = (res.headers.get('Content-Type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (res.status === 204) return [];
  const bytes = await readBytes(res, maxBytes, tooBig);
  const data =
    bytes.byteLength === bytes.buffer.byteLength
      ? (bytes.buffer as ArrayBuffer)
      : (bytes.slice().buffer as ArrayBuffer);
  if (type === 'multipart/form-data')
    return filesFromForm(
      await new Response(data, { headers: { 'Content-Type': res.headers.get('Content-Type')! } }).formData(),
    );
  const disp = res.headers.get('Content-Disposition') ?? '';
  const named = /filename\*=UTF-8''([^;]+)/i.exec(disp)?.[1] ?? /filename="?([^";]+)"?/i.exec(disp)?.[1];
  let name = named ? cleanName(decodeURIComponentSafe(named), fallback) : fallback;
  if (!named) name += type === 'application/json' ? '.json' : type.startsWith('text/') ? '.txt' : '';
  return [{ name, type: res.headers.get('Content-Type') ?? 'application/octet-stream', data }];
}

function decodeURIComponentSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The multipart body an https:// step receives: one part per input file. */
export function formOf(files: RunFile[]): FormData {
  const form = new FormData();
  for (const f of files) form.append('file', new File([f.data], f.name, { type: f.type }));
  return form;
}
