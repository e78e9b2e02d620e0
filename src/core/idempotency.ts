/**
 * `Idempotency-Key`, as Stripe documents it: on a route that acts (RouteSpec.idempotent: a trigger, a send, a token, a
 * create), a request that sends the header is answered once; the same key with the same body on the same route
 * within 24 hours answers that first answer again (status, headers, body; `Idempotent-Replayed: true`) and does
 * nothing. The same key with another body or on another route is 422; while the first request with a key is still
 * running, another is 409 (Retry-After). Keys are per account: one account's key never answers another's request.
 *
 * The first request claims its key before it acts, so two requests with one key never both act: one D1 round trip (an
 * INSERT that only a free key lets through, batched with the read of the row that holds it), run beside the route's
 * checks (RouteSpec.enter, which only read). Its answer is stored once sent (waitUntil: the write is off the
 * request's path, which the 1 ms budget of a trigger needs); until then the claim stays pending, and a retry with the
 * same body waits for it (about 1 s at most, then 409). An answer that says to retry (a 5xx, 425 or 429, or an error
 * thrown) releases the key instead, before it is sent, so the retry acts.
 * A claim whose request never answered (its Worker was killed) is never taken over: that request may have acted,
 * so after PENDING_STALE_MS a retry with its key answers 409 `idempotency_answer_not_kept` (check, then act with a
 * new key) rather than acting a second time.
 *
 * What is stored: the key only as its SHA-256, the body only as an HMAC under a key derived from the raw key, and the
 * answer sealed with AES-GCM under another key derived from it: a reader of the database learns neither the key, nor
 * what the body said, nor the answer (a token's secret). Answer bodies up to KEPT_BODY_LIMIT are kept; a larger one is
 * sent whole, its headers kept, and a replay answers 409 `idempotency_answer_not_kept` with those headers (X-Run-Id
 * names the run whose output it was). The retention tick removes rows after IDEMPOTENCY_WINDOW_MS.
 */
import { now } from './clock';
import { d1Of, type DbSession } from './context';
import { fromBase64, sha256Hex, toBase64, toHex } from './crypto';
import { badRequest, HttpError, toErrorResponse } from './errors';
import { concatBytes, KiB } from './http';

const IDEMPOTENCY_KEY = 'Idempotency-Key';
/** The header of an answer that was replayed, not made again. */
const REPLAYED = 'Idempotent-Replayed';
/** How long a key answers with its first answer (the retention tick removes it after). */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3600 * 1000;
/** A claim still pending after this lost its request (the longest run step is 15 minutes): it is not answered again. */
const PENDING_STALE_MS = 3600 * 1000;
/** The most of an answer's body kept for replays. */
const KEPT_BODY_LIMIT = 64 * KiB;

/** 1 to 255 printable ASCII characters (space included). */
const KEY = /^[\x20-\x7e]{1,255}$/;

/** The key a request sends: null without the header; 400 for one that is not 1-255 printable ASCII characters. */
export function idempotencyKeyOf(req: Request): string | null {
  const key = req.headers.get(IDEMPOTENCY_KEY);
  if (key === null || KEY.test(key)) return key;
  throw badRequest(`${IDEMPOTENCY_KEY} must be 1 to 255 printable ASCII characters (a random UUID is a good key)`);
}

/** Whether an answer of this status is kept for replays: not one that tells the client to retry. */
export const keepsAnswer = (status: number): boolean => status < 500 && status !== 425 && status !== 429;

const enc = new TextEncoder();
const dec = new TextDecoder();

/** What one raw key gives: the row's id, the key of its request's HMAC, and what the key sealing its answer comes from. */
export interface KeyMaterial {
  hash: string;
  mac: CryptoKey;
  ikm: CryptoKey;
  salt: Uint8Array<ArrayBuffer>;
}

const hkdf = (salt: Uint8Array<ArrayBuffer>, info: string) => ({
  name: 'HKDF',
  hash: 'SHA-256',
  salt,
  info: enc.encode(info),
});

/** The key's SHA-256 and the MAC key HKDF derives from it for `account` (never from the hash: the database has that). */
export async function keyMaterial(key: string, account: number): Promise<KeyMaterial> {
  const ikm = await crypto.subtle.importKey('raw', enc.encode(key), 'HKDF', false, ['deriveKey']);
  const salt = new Uint8Array(enc.encode(`idempotency:${account}`));
  const mac = { name: 'HMAC', hash: 'SHA-256', length: 256 };
  const [hash, macKey] = await Promise.all([
    sha256Hex(key),
    crypto.subtle.deriveKey(hkdf(salt, 'request'), ikm, mac, false, ['sign']),
  ]);
  return { hash, mac: macKey, ikm, salt };
}

/** The key sealing the answer, derived only when an answer is sealed or opened (never on the way to acting). */
const sealKey = (m: KeyMaterial) =>
  crypto.subtle.deriveKey(hkdf(m.salt, 'answer'), m.ikm, { name: 'AES-GCM', length: 256 }, false, [
    'encrypt',
    'decrypt',
  ]);

/** The request body's fingerprint: an HMAC under the key's own MAC key (a bare hash would let a reader test guesses). */
export async function requestHash(m: KeyMaterial, body: Uint8Array<ArrayBuffer>): Promise<string> {
  return toHex(await crypto.subtle.sign('HMAC', m.mac, body));
}

/** An answer as kept: its status, its headers, its body (null: it was larger than KEPT_BODY_LIMIT) and its size. */
export interface KeptAnswer {
  status: number;
  headers: [string, string][];
  body: Uint8Array<ArrayBuffer> | null;
  size: number;
}

/** `<4-byte length><JSON of status, headers, size, kept><body>`. */
export function encodeAnswer(a: KeptAnswer): Uint8Array<ArrayBuffer> {
  const meta = enc.encode(JSON.stringify({ status: a.status, headers: a.headers, size: a.size, kept: !!a.body }));
  const body = a.body ?? new Uint8Array(0);
  const out = new Uint8Array(4 + meta.byteLength + body.byteLength);
  new DataView(out.buffer).setUint32(0, meta.byteLength);
  out.set(meta, 4);
  out.set(body, 4 + meta.byteLength);
  return out;
}

export function decodeAnswer(bytes: Uint8Array<ArrayBuffer>): KeptAnswer {
  const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
  const meta = JSON.parse(dec.decode(bytes.subarray(4, 4 + n))) as Omit<KeptAnswer, 'body'> & { kept: boolean };
  return { status: meta.status, headers: meta.headers, size: meta.size, body: meta.kept ? bytes.slice(4 + n) : null };
}

/** The answer sealed (AES-GCM, bound to its row by `aad`): base64 of IV and ciphertext. */
export async function sealAnswer(m: KeyMaterial, aad: string, a: KeptAnswer): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: 'AES-GCM', iv, additionalData: enc.encode(aad) },
    await sealKey(m),
    encodeAnswer(a),
  );
  const out = new Uint8Array(12 + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), 12);
  return toBase64(out);
}

export async function openAnswer(m: KeyMaterial, aad: string, sealed: string): Promise<KeptAnswer> {
  const bytes = fromBase64(sealed);
  const plain = await crypto.subtle.decrypt(
    { name: 'AES-GCM', iv: bytes.subarray(0, 12), additionalData: enc.encode(aad) },
    await sealKey(m),
    bytes.subarray(12),
  );
  return decodeAnswer(new Uint8Array(plain));
}

/** One request that sent a key: the key, the account it counts for, `METHOD /path?query`, and its body. */
export interface IdempotentRequest {
  key: string;
  account: number;
  route: string;
  body: Uint8Array<ArrayBuffer>;
}

interface KeyRow {
  route: string;
  request_hash: string;
  status: number | null;
  answer: string | null;
  created_on: string;
}

const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * The answer's body read up to `limit` bytes: the bytes and the answer to send on, or null and the answer still
 * streaming (what was read first, then the rest) when it is larger.
 */
async function readUpTo(
  res: Response,
  limit: number,
): Promise<{ body: Uint8Array<ArrayBuffer> | null; size: number; res: Response }> {
  if (!res.body || NULL_BODY.has(res.status)) return { body: new Uint8Array(0), size: 0, res };
  const reader = res.body.getReader();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      const body = concatBytes(chunks, size) as Uint8Array<ArrayBuffer>;
      return { body, size, res: new Response(body, res) };
    }
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) {
      const rest = new ReadableStream<Uint8Array>({
        start(c) {
          for (const chunk of chunks) c.enqueue(chunk);
        },
        async pull(c) {
          const next = await reader.read();
          if (next.done) c.close();
          else c.enqueue(next.value);
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return { body: null, size, res: new Response(rest, res) };
    }
  }
}

/** The kept answer again, marked replayed. */
function replay(a: KeptAnswer): Response {
  const headers = new Headers(a.headers);
  headers.set(REPLAYED, 'true');
  if (a.body) return new Response(NULL_BODY.has(a.status) ? null : a.body, { status: a.status, headers });
  const named = Object.fromEntries(a.headers.filter(([h]) => h === 'x-run-id' || h === 'location'));
  throw new HttpError(
    409,
    `the request with this ${IDEMPOTENCY_KEY} was done (it answered ${a.status}), but its answer of ${a.size} bytes was more than the ${KEPT_BODY_LIMIT / KiB} KiB kept for a replay${Object.keys(named).length ? `: ${Object.keys(named).join(' and ')} name what it made` : ''}`,
    { code: 'idempotency_answer_not_kept', answered: a.status },
    { ...named, [REPLAYED]: 'true' },
  );
}

/**
 * How long the store of an answer waits for the answer to leave: issued at once, its work shared the isolate with the
 * sending of the answer (0.3-0.7 ms more on a trigger's p50 in `npm run bench`).
 */
const STORE_AFTER_MS = 5;

/** How long a retry waits for a pending first request to finish before it answers 409: doubling pauses, about 1 s. */
const WAIT_PAUSES_MS = [10, 20, 40, 80, 160, 320, 370];

/**
 * Runs `act` for a request that sent `Idempotency-Key`: once per key, its answer kept; a later request with the key
 * gets that answer again, a 422 (another body or route) or a 409 (the first is still running). `enter`, the route's
 * checks (they only read), runs beside the claim; `act` only once the key is claimed. `defer` (waitUntil) stores the
 * answer after it is sent: until then the claim stays pending and a retry waits for it.
 */
export async function idempotently<C>(
  session: DbSession,
  defer: (work: Promise<unknown>) => void,
  r: IdempotentRequest,
  enter: () => Promise<C>,
  act: (entered: C) => Promise<Response>,
): Promise<Response> {
  const m = await keyMaterial(r.key, r.account);
  const hash = await requestHash(m, r.body);
  const at = now();
  const d1 = d1Of(session.db);
  const row = [r.account, m.hash] as const;
  const where = `WHERE account_id = ?1 AND key_hash = ?2`;
  const read = d1
    .prepare(`SELECT route, request_hash, status, answer, created_on FROM idempotency_keys ${where}`)
    .bind(...row);
  // Claimed: a new row, or one past the window (a pending one too: its request may have acted, see above). It rides
  // with the first batch of the route's checks (a resource's load): a new key costs no round trip of its own.
  const claim = session.ride(
    d1
      .prepare(
        `INSERT INTO idempotency_keys (account_id, key_hash, route, request_hash, status, answer, created_on)
         VALUES (?1, ?2, ?3, ?4, NULL, NULL, ?5)
         ON CONFLICT (account_id, key_hash) DO UPDATE SET route = excluded.route,
           request_hash = excluded.request_hash, status = NULL, answer = NULL, created_on = excluded.created_on
         WHERE idempotency_keys.created_on < ?6
         RETURNING 1 AS claimed`,
      )
      .bind(...row, r.route, hash, new Date(at).toISOString(), new Date(at - IDEMPOTENCY_WINDOW_MS).toISOString()),
  );
  // Settles either way (when the key is not claimed, what the checks found is not answered); checks that read
  // nothing send the claim alone.
  const entered = enter().then(
    (ctx) => ({ ctx }),
    (error: unknown) => ({ error }),
  );
  void entered.then(() => session.flush());
  const claimed = (await claim).results.length > 0;
  if (!claimed) {
    // Held (a retry: not the path to keep short). The same request while the first one is pending (running, or its
    // answer being stored): wait a little for it.
    let found = (await read.first<KeyRow>()) ?? undefined;
    const same = (k: KeyRow | undefined) => k?.status === null && k.route === r.route && k.request_hash === hash;
    for (const pause of WAIT_PAUSES_MS) {
      if (!same(found)) break;
      await new Promise((done) => setTimeout(done, pause));
      found = (await read.first<KeyRow>()) ?? undefined;
    }
    return answerAgain(m, r, hash, found, at);
  }

  let res: Response;
  try {
    const e = await entered;
    if ('error' in e) throw e.error;
    res = await act(e.ctx);
  } catch (err) {
    res = toErrorResponse(err);
  }
  if (!keepsAnswer(res.status)) {
    // The retry this answer asks for acts.
    await d1
      .prepare(`DELETE FROM idempotency_keys ${where} AND status IS NULL`)
      .bind(...row)
      .run()
      .catch((err: unknown) => console.error('idempotency: releasing a key failed', err));
    return res;
  }
  const kept = await readUpTo(res, KEPT_BODY_LIMIT);
  const headers = [...kept.res.headers].filter(([h]) => h !== 'content-length');
  const answer: KeptAnswer = { status: res.status, headers, body: kept.body, size: kept.size };
  // Sealed and stored once the answer is on its way (AES-GCM and a D1 write, off the request's path): the claim stays
  // pending until they land, so a retry in between waits for it. A write that fails leaves the claim pending until
  // stale.
  defer(
    new Promise((sent) => setTimeout(sent, STORE_AFTER_MS))
      .then(() => sealAnswer(m, `${r.account}:${m.hash}`, answer))
      .then((sealed) =>
        d1
          .prepare(`UPDATE idempotency_keys SET status = ?3, answer = ?4 ${where}`)
          .bind(...row, res.status, sealed)
          .run(),
      )
      .catch((err: unknown) => console.error('idempotency: storing an answer failed', err)),
  );
  return kept.res;
}

/** A key already held: its answer again when this is the same request, else why not. */
async function answerAgain(m: KeyMaterial, r: IdempotentRequest, hash: string, row: KeyRow | undefined, at: number) {
  const code = { code: 'idempotency_key_reused' };
  const fresh = 'send a new key for a new request';
  if (row && row.route !== r.route)
    throw new HttpError(422, `this ${IDEMPOTENCY_KEY} was used for ${row.route}: ${fresh}`, code);
  if (row && row.request_hash !== hash)
    throw new HttpError(422, `this ${IDEMPOTENCY_KEY} was used with another body: ${fresh}`, code);
  if (row && row.status === null && Date.parse(row.created_on) < at - PENDING_STALE_MS)
    throw new HttpError(
      409,
      `the first request with this ${IDEMPOTENCY_KEY} stopped before its answer was kept: it may have acted; check, then ${fresh}`,
      { code: 'idempotency_answer_not_kept' },
    );
  if (!row || row.status === null || row.answer === null) {
    throw new HttpError(
      409,
      `a request with this ${IDEMPOTENCY_KEY} is still being answered: retry once it is`,
      { code: 'idempotency_in_progress', retry_after_seconds: 1 },
      { 'Retry-After': '1' },
    );
  }
  return replay(await openAnswer(m, `${r.account}:${m.hash}`, row.answer));
}
