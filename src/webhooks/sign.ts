/**
 * Standard Webhooks (v1) secrets and signatures: a secret is `whsec_` + base64 of 32
 * random bytes; the signature of a message is `v1,` + base64(HMAC-SHA256(key,
 * `<webhook-id>.<webhook-timestamp>.<body>`)), several separated by spaces.
 */
import { BoundedCache } from '../core/bounded-cache';
import { fromBase64, hmacKey, randomBytes, toBase64, webhookHmac } from '../core/crypto';

const PREFIX = 'whsec_';
/** Signing keys by secret: an endpoint's pass signs every delivery with the same one or two. */
const keys = new BoundedCache<string, Promise<CryptoKey>>({ maxEntries: 256 });

export function newSecret(): string {
  return PREFIX + toBase64(randomBytes(32));
}

function keyBytes(secret: string): Uint8Array<ArrayBuffer> {
  const b64 = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  return fromBase64(b64);
}

/** One `v1,<signature>` of the message under one secret. */
export async function signature(secret: string, msgId: string, timestamp: number, body: string): Promise<string> {
  let key = keys.get(secret);
  if (!key) keys.set(secret, (key = hmacKey(keyBytes(secret))));
  return `v1,${await webhookHmac(await key, msgId, timestamp, body)}`;
}

/** The webhook-signature header: by every secret given (the current one, and the previous during a rotation). */
export async function signatureHeader(
  secrets: string[],
  msgId: string,
  timestamp: number,
  body: string,
): Promise<string> {
  return (await Promise.all(secrets.map((s) => signature(s, msgId, timestamp, body)))).join(' ');
}
