/** Hashing primitives on WebCrypto (available in Workers and workerd alike), random bytes and base64. */

const enc = new TextEncoder();

export function toHex(bytes: ArrayBuffer | Uint8Array): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = '';
  for (const b of view) out += b.toString(16).padStart(2, '0');
  return out;
}

export function randomBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n));
}

export function base64url(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** The bytes of standard base64; throws on anything else (atob's rule). */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

/** The bytes of url-safe base64 (base64url's output: `-`, `_`, no padding); throws on anything else. */
export const fromBase64url = (text: string) => fromBase64(text.replace(/-/g, '+').replace(/_/g, '/'));

/** Bytes in standard base64 (in slices: a spread of a large array would overflow the call stack). */
export function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

export async function sha256Hex(data: string | BufferSource): Promise<string> {
  const bytes = typeof data === 'string' ? enc.encode(data) : data;
  return toHex(await crypto.subtle.digest('SHA-256', bytes));
}

/** An HMAC-SHA256 signing key of raw key bytes (imported once, then kept by who signs often). */
export function hmacKey(key: ArrayBuffer | ArrayBufferView): Promise<CryptoKey> {
  return crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
}

/**
 * The Standard Webhooks (v1) signature content: base64 of HMAC-SHA256 under `key` over
 * `<id>.<timestamp>.<body>` (what webhook deliveries carry and mail reports are checked by).
 */
export async function webhookHmac(key: CryptoKey, id: string, timestamp: string | number, body: string) {
  return toBase64(new Uint8Array(await crypto.subtle.sign('HMAC', key, enc.encode(`${id}.${timestamp}.${body}`))));
}

/** The SHA-256 of a text in standard base64: the form a Content-Security-Policy hash source takes. */
export async function sha256Base64(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', enc.encode(text)));
  let bin = '';
  for (const b of digest) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** Workers caps PBKDF2 at 100,000 iterations; that is our cost. */
const PBKDF2_ITERATIONS = 100_000;

export async function hashPassword(password: string, saltHex: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', enc.encode(password), 'PBKDF2', false, ['deriveBits']);
  const salt = Uint8Array.from(saltHex.match(/../g)!.map((h) => parseInt(h, 16)));
  const bits = await crypto.subtle.deriveBits(
    { name: 'PBKDF2', hash: 'SHA-256', salt, iterations: PBKDF2_ITERATIONS },
    key,
    256,
  );
  return toHex(bits);
}

/** Compares two strings in time that depends only on their lengths. */
export function timingSafeEqual(a: string, b: string): boolean {
  const ab = enc.encode(a);
  const bb = enc.encode(b);
  const subtle = crypto.subtle as SubtleCrypto & {
    timingSafeEqual?: (x: ArrayBufferView, y: ArrayBufferView) => boolean;
  };
  if (ab.byteLength !== bb.byteLength) {
    // Still do the work so a length probe costs the same.
    subtle.timingSafeEqual?.(ab, ab);
    return false;
  }
  if (subtle.timingSafeEqual) return subtle.timingSafeEqual(ab, bb);
  let diff = 0;
  for (let i = 0; i < ab.byteLength; i++) diff |= ab[i]! ^ bb[i]!;
  return diff === 0;
}
