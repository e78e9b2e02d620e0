/**
 * Delivering an endpoint's due deliveries, in the order they fell due (the
 * endpoint's Durable Object calls runDue from its alarm, one run at a time). Each attempt
 * checks the URL and what its host resolves to (core/resolve.ts), then is a signed POST (Standard Webhooks headers) with a 15 s timeout; only 2xx is success,
 * 3xx is a failure and never followed; 410 disables the endpoint. The results of a page
 * are written in one batch after it: a kill before that repeats the page's attempts
 * (at least once; receivers deduplicate on webhook-id).
 */
import type { BatchItem } from 'drizzle-orm/batch';
import { and, asc, eq, isNotNull, lte, min, sql } from 'drizzle-orm';
import { now, nowIso } from '../core/clock';
import { dbFor, type Db } from '../core/context';
import { sendMail } from '../core/mailer';
import { hostRefusal } from '../core/resolve';
import { users } from '../db/schema';
import { escapeHtml } from '../markup/escape';
import { DELIVERY_TIMEOUT_MS, failedTooLong, nextRetryDelay, retryAfterMs } from './schedule';
import { webhookDeliveries, webhooks, type Delivery, type Webhook } from './schema';
import { signatureHeader } from './sign';
import { endpointUrlRefusal } from './urls';

/** Deliveries attempted before their results are written. */
const PAGE = 50;
/** How much of a response is kept in the delivery record. */
const RESPONSE_KEEP = 4096;
const USER_AGENT = 'edge-platform-webhooks/1';

interface Attempt {
  code: number | null;
  body: string;
  ms: number;
  retryAfter: number | null;
}

/**
 * The endpoint's first PAGE deliveries due now, in the order they fell due: a new one falls
 * due when its event is recorded (ties: in the order recorded), a retry at its retry time.
 * Both reads find the endpoint's pending deliveries by their index (webhook_deliveries_pending),
 * never walking the delivered ones the endpoint has in retention; in this order a page is the
 * index's first entries, where event order sorted every delivery due for each page.
 */
export const dueQuery = (db: Db, webhookId: number) =>
  db
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.webhook_id, webhookId), lte(webhookDeliveries.next_attempt_on, nowIso())))
    .orderBy(asc(webhookDeliveries.next_attempt_on), asc(webhookDeliveries.id))
    .limit(PAGE);

/** When (platform ms) the endpoint's next delivery falls due: the query, read alone or at the end of a batch. */
export const nextDueQuery = (db: Db, webhookId: number) =>
  db
    .select({ at: min(webhookDeliveries.next_attempt_on) })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.webhook_id, webhookId), isNotNull(webhookDeliveries.next_attempt_on)));

const dueAt = (rows: { at: string | null }[]) => (rows[0]?.at ? Date.parse(rows[0].at) : null);

/**
 * Delivers what is due now; answers when (platform ms) the next delivery falls due, or null. Two D1 round trips
 * a page: the endpoint with its due deliveries, then the results with the next due time.
 */
export async function runDue(env: Env, webhookId: number): Promise<number | null> {
  const db = dbFor(env);
  for (;;) {
    const [hooks, due] = await db.batch([
      db.select().from(webhooks).where(eq(webhooks.id, webhookId)),
      dueQuery(db, webhookId),
    ]);
    const hook = hooks[0];
    if (!hook?.enabled) return null;
    if (due.length === 0) return dueAt(await nextDueQuery(db, webhookId));
    const next = await deliverPage(env, db, hook, due);
    if (next === false) return null;
    // A short page was all that was due (a delivery recorded meanwhile wakes the object again).
    if (due.length < PAGE) return next;
  }
}

/** What one attempt leaves in its delivery's row (manual is cleared: a manual retry is one attempt). */
interface Outcome {
  id: number;
  attempt: number;
  status: Delivery['status'];
  code: number | null;
  body: string;
  ms: number;
  next: string | null;
}

/** A page's outcomes in one statement (a JSON row each), not one UPDATE per delivery. */
function recordOutcomes(db: Db, rows: Outcome[]) {
  const field = (key: keyof Outcome) => sql`json_extract(o.value, ${`$.${key}`})`;
  return db
    .update(webhookDeliveries)
    .set({
      attempt: field('attempt'),
      status: field('status'),
      manual: 0,
      response_code: field('code'),
      response_body: field('body'),
      duration_ms: field('ms'),
      next_attempt_on: field('next'),
    })
    .from(sql`json_each(${JSON.stringify(rows)}) AS o`)
    .where(eq(webhookDeliveries.id, field('id')));
}

/**
 * Attempts one page in order and records it; false when the endpoint was disabled on the way, else when the next
 * delivery falls due (read in the same batch as the results).
 */
async function deliverPage(env: Env, db: Db, hook: Webhook, page: Delivery[]): Promise<number | null | false> {
  const rows: Outcome[] = [];
  let failingSince = hook.failing_since;
  let disabled: string | null = null;
  for (const d of page) {
    const result = await attempt(env, hook, d);
    const at = now();
    const attemptNo = d.attempt + 1;
    const manual = d.manual === 1;
    const base = { id: d.id, attempt: attemptNo, code: result.code, body: result.body, ms: result.ms };
    if (result.code !== null && result.code >= 200 && result.code < 300) {
      rows.push({ ...base, status: 'delivered', next: null });
      if (!manual) failingSince = null;
    } else if (result.code === 410) {
      rows.push({ ...base, status: 'failed', next: null });
      disabled = 'the endpoint answered 410 Gone';
    } else if (manual) {
      rows.push({ ...base, status: 'failed', next: null });
    } else {
      const wait = nextRetryDelay(attemptNo, result.retryAfter);
      rows.push(
        wait === null
          ? { ...base, status: 'exhausted', next: null }
          : { ...base, status: 'failed', next: new Date(at + wait).toISOString() },
      );
      failingSince ??= new Date(at).toISOString();
      if (failedTooLong(failingSince, at)) disabled = 'every attempt failed for 5 days';
    }
    if (disabled) break;
  }
  const writes: BatchItem<'sqlite'>[] = [recordOutcomes(db, rows)];
  // The endpoint's row only when its failure streak began, ended or switched it off.
  if (disabled)
    writes.push(
      db
        .update(webhooks)
        .set({ failing_since: failingSince, enabled: false, disabled_reason: disabled })
        .where(eq(webhooks.id, hook.id)),
    );
  else if (failingSince !== hook.failing_since)
    writes.push(db.update(webhooks).set({ failing_since: failingSince }).where(eq(webhooks.id, hook.id)));
  // The results, then the next due time (which they may have moved), in one round trip.
  const results = await db.batch([...writes, nextDueQuery(db, hook.id)] as unknown as [
    BatchItem<'sqlite'>,
    ...BatchItem<'sqlite'>[],
  ]);
  if (disabled) {
    await tellOwner(env, db, hook, disabled);
    return false;
  }
  return dueAt(results[results.length - 1] as unknown as { at: string | null }[]);
}

/** One signed POST of a delivery; never throws (a network error or a timeout is a failure without a code). */
async function attempt(env: Env, hook: Webhook, d: Delivery): Promise<Attempt> {
  const started = Date.now();
  // The URL again (the rules may have changed since it was written), then what its host resolves to now.
  const refused = endpointUrlRefusal(env, hook.url) ?? (await hostRefusal(env, new URL(hook.url)));
  if (refused) return { code: null, body: `not sent: ${refused}`, ms: Date.now() - started, retryAfter: null };
  // The timestamp is the wall clock's: receivers compare it with theirs (replay window).
  const timestamp = Math.floor(Date.now() / 1000);
  const secrets = [hook.secret];
  if (hook.old_secret && hook.old_secret_until && hook.old_secret_until > nowIso()) secrets.push(hook.old_secret);
  try {
    const res = await fetch(hook.url, {
      method: 'POST',
      redirect: 'manual',
      signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
      headers: {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        'webhook-id': d.msg_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': await signatureHeader(secrets, d.msg_id, timestamp, d.body),
      },
      body: d.body,
    });
    const body = await head(res, RESPONSE_KEEP);
    return {
      code: res.status,
      body,
      ms: Date.now() - started,
      retryAfter: retryAfterMs(res.headers.get('retry-after'), Date.now()),
    };
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    return {
      code: null,
      body: timedOut ? `no answer within ${DELIVERY_TIMEOUT_MS / 1000} s` : `not delivered: ${(err as Error).message}`,
      ms: Date.now() - started,
      retryAfter: null,
    };
  }
}

/** The first `limit` bytes of a response body as text; the rest is not read. */
async function head(res: Response, limit: number): Promise<string> {
  if (!res.body) return '';
  // Most receivers answer a few bytes or none, with their length: read whole, no stream loop.
  // Not when encoded (the runtime decodes it, and the decoded size is not the length).
  const length = res.headers.get('content-length');
  if (length !== null && /^\d{1,7}$/.test(length) && Number(length) <= limit && !res.headers.has('content-encoding'))
    return res.text();
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  while (size < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  await reader.cancel().catch(() => undefined);
  const all = new Uint8Array(Math.min(size, limit));
  let offset = 0;
  for (const c of chunks) {
    all.set(c.subarray(0, all.length - offset), offset);
    offset += Math.min(c.byteLength, all.length - offset);
    if (offset >= all.length) break;
  }
  return new TextDecoder().decode(all);
}

/** The e-mail to the endpoint's owner when it was switched off. */
async function tellOwner(env: Env, db: Db, hook: Webhook, reason: string): Promise<void> {
  const owner = await db.select({ email: users.email }).from(users).where(eq(users.id, hook.owner_id)).get();
  if (!owner?.email) return;
  const text = `Your webhook endpoint "${hook.name}" (${hook.url}) has been disabled: ${reason}.\n\nTurn it back on with POST /v1/admin/webhooks/${hook.name} {"enabled": true} once it answers again.`;
  try {
    await sendMail(env, db, {
      kind: 'notice',
      to: [owner.email],
      subject: `Webhook endpoint ${hook.name} disabled`,
      text,
      html: `<p>${escapeHtml(text).replace(/\n\n/g, '</p><p>')}</p>`,
      messageId: `<webhook-${hook.id}-disabled-${Date.parse(hook.last_modified)}@${env.MAIL_FROM?.split('@')[1] ?? 'localhost'}>`,
    });
  } catch (err) {
    console.error('webhook disable notice', err);
  }
}
