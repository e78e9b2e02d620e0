/**
 * Unsubscribe links: `<PUBLIC_ORIGIN>/v1/mail/unsubscribe/<token>` where the token names
 * the mail, its owner and the recipient, signed with HMAC-SHA256 so it cannot be forged
 * for another address or sender. The key is the secret MAIL_UNSUBSCRIBE_KEY when set,
 * otherwise a random key the platform creates once and keeps in D1 (mail_keys).
 */
import { and, eq, inArray } from 'drizzle-orm';
import { nowIso } from '../core/clock';
import type { Db } from '../core/context';
import { base64url, fromBase64url, hmacKey, randomBytes, timingSafeEqual, toHex } from '../core/crypto';
import { mailKeys, mailSuppressions } from './schema';

export interface UnsubscribePayload {
  mail: number;
  owner: number;
  email: string;
  /** The recipient as the mail's lists wrote it (`@user`, a group, the address): what the mail's log names. */
  as?: string;
}

const enc = new TextEncoder();
const keys = new WeakMap<D1Database, Promise<CryptoKey>>();

async function loadSecret(env: Env, db: Db): Promise<string> {
  const configured = env.MAIL_UNSUBSCRIBE_KEY;
  if (configured) return configured;
  await db
    .insert(mailKeys)
    .values({ id: 1, secret: toHex(randomBytes(32)) })
    .onConflictDoNothing();
  return (await db.select().from(mailKeys).where(eq(mailKeys.id, 1)).get())!.secret;
}

function signingKey(env: Env, db: Db): Promise<CryptoKey> {
  let key = keys.get(env.DB);
  if (!key) {
    key = loadSecret(env, db).then((s) => hmacKey(enc.encode(s)));
    key.catch(() => keys.delete(env.DB));
    keys.set(env.DB, key);
  }
  return key;
}

async function mac(env: Env, db: Db, data: string): Promise<string> {
  return base64url(new Uint8Array(await crypto.subtle.sign('HMAC', await signingKey(env, db), enc.encode(data))));
}

export async function unsubscribeToken(env: Env, db: Db, p: UnsubscribePayload): Promise<string> {
  const data = base64url(
    enc.encode(JSON.stringify(p.as === undefined ? [p.mail, p.owner, p.email] : [p.mail, p.owner, p.email, p.as])),
  );
  return `${data}.${await mac(env, db, data)}`;
}

export async function unsubscribeUrl(env: Env, db: Db, p: UnsubscribePayload): Promise<string> {
  return `${env.PUBLIC_ORIGIN}/v1/mail/unsubscribe/${await unsubscribeToken(env, db, p)}`;
}

/** The payload of a genuine token, or null for anything forged, altered or malformed. */
export async function verifyUnsubscribeToken(env: Env, db: Db, token: string): Promise<UnsubscribePayload | null> {
  const m = /^([A-Za-z0-9_-]{1,2048})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m || !timingSafeEqual(await mac(env, db, m[1]!), m[2]!)) return null;
  try {
    const [mail, owner, email, as] = JSON.parse(new TextDecoder().decode(fromBase64url(m[1]!))) as [
      number,
      number,
      string,
      string?,
    ];
    return { mail, owner, email, ...(typeof as === 'string' ? { as } : {}) };
  } catch {
    return null;
  }
}

/** Why an address gets no more mail: from one owner (unsubscribed) or from anyone (owner 0: bounced, complained). */
export type SuppressionReason = 'unsubscribed' | 'bounced' | 'complained';

/** The statement recording that `email` wants no more mail from `ownerId` (0: from anyone), for a caller's batch. */
export function suppressionInsert(db: Db, ownerId: number, email: string, reason: SuppressionReason) {
  return db
    .insert(mailSuppressions)
    .values({ owner_id: ownerId, email, reason, created_on: nowIso() })
    .onConflictDoNothing();
}

/** Records that `email` wants no more mail from `ownerId` (0: from anyone, a bounce). */
export async function suppress(db: Db, ownerId: number, email: string, reason: SuppressionReason): Promise<void> {
  await suppressionInsert(db, ownerId, email, reason);
}

/** Which of `emails` (normalised) must not get mail from `ownerId`. */
export async function suppressedAmong(db: Db, ownerId: number, emails: string[]): Promise<Set<string>> {
  const out = new Set<string>();
  for (let i = 0; i < emails.length; i += 90) {
    const rows = await db
      .select({ email: mailSuppressions.email })
      .from(mailSuppressions)
      .where(
        and(inArray(mailSuppressions.owner_id, [0, ownerId]), inArray(mailSuppressions.email, emails.slice(i, i + 90))),
      );
    for (const r of rows) out.add(r.email);
  }
  return out;
}
