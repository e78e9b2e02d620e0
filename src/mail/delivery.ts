/**
 * Delivery of one accepted send (run by the MailObject's alarm): recipients resolved now,
 * plan limit applied, suppressed addresses dropped, one message per recipient (each with
 * its own unsubscribe link) handed to the transport, then a stats/runs row and log lines.
 * Nothing here throws: a transport failure counts as a failed recipient, anything else
 * fails the run, and the run is always recorded.
 */
import { eq, sql } from 'drizzle-orm';
import { now, nowIso } from '../core/clock';
import { dbFor, type Db } from '../core/context';
import { entriesQuery, entryAuthorship, entryValues, type StoredAuthorship } from '../core/entries';
import { batchWithEvent, type Background, type PlatformEvent } from '../core/events';
import { appendLog, logInsert } from '../core/log';
import { sendMail, messageIdFor, type Attachment, type OutboundMail } from '../core/mailer';
import { resources, users, type Resource, type User } from '../db/schema';
import { cachedPng } from '../render/plot-png';
import { getAsset } from './assets';
import { documentAttachments } from './attach';
import { composeStored, oversizeNote, personalise, type Composed } from './compose';
import { listWriters, resolveStoredRecipients, type Resolved } from './recipients';
import { normaliseAddress, planOf, runStatus, type SendAction, type Tally } from './rules';
import { mailRuns } from './schema';
import { suppressedAmong, unsubscribeUrl } from './unsubscribe';

/** One accepted send, as the MailObject queues it. */
export interface QueuedSend {
  id: string;
  action: SendAction;
  /** The in-flight key (rules.recipientKey). */
  key: string;
  resourceId: number;
  callerId: number;
  callerName: string;
  /** Ad-hoc recipients replacing the stored lists for this send. */
  to?: string[];
  /** Platform clock at acceptance (ms). */
  acceptedOn: number;
  /** Times delivery started (the MailObject counts them durably): above 1, a resume after an interruption. */
  attempts?: number;
}

/** Messages handed to the transport at once. */
const PARALLEL = 8;

/** Hands one message off; false when its messageId was already handed off (a resumed send). */
export type Transport = (env: Env, db: Db, mail: OutboundMail) => Promise<boolean | void>;

const log = (db: Db, id: number, message: string, severity: 'info' | 'warning' | 'error' = 'info') =>
  appendLog(db, id, message, severity).catch(() => undefined);

/**
 * The assets the composed message refers to, read for embedding (cid: parts; the web view
 * inlines the images), and the PNGs of the plots its vis blocks show (a plot the browser
 * could not draw is left out: its block keeps a broken image, and `problems` says why).
 */
export async function embedded(
  env: Env,
  resourceId: number,
  c: Composed,
  problems: string[] = [],
): Promise<Attachment[]> {
  const out: Attachment[] = [];
  for (const v of c.visuals ?? []) {
    try {
      const png = await cachedPng(env, v.plotId, v.hash, async () => ({ svg: v.svg, size: v.size }));
      const content =
        png.bytes instanceof Uint8Array ? png.bytes : new Uint8Array(await new Response(png.bytes).arrayBuffer());
      out.push({ filename: v.filename, content_type: 'image/png', content });
    } catch (err) {
      problems.push(`a plot could not be drawn as PNG: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  for (const name of c.assets) {
    const obj = await getAsset(env, resourceId, name);
    if (obj)
      out.push({
        filename: name,
        content_type: obj.httpMetadata?.contentType ?? 'application/octet-stream',
        content: new Uint8Array(await obj.arrayBuffer()),
      });
  }
  return out;
}

/**
 * The addresses of a send, each with how it was written: the log (read by every reader of
 * the mail) names a recipient that way, never the address an `@user` or a group resolved to.
 */
async function recipientsOf(
  db: Db,
  job: QueuedSend,
  owner: User,
  caller: User | undefined,
  stored: Map<string, string>,
  authorship: ReadonlyMap<string, StoredAuthorship>,
): Promise<Resolved> {
  if (job.action === 'test') {
    if (caller?.email && caller.email_verified) {
      const a = normaliseAddress(caller.email);
      return { addresses: [a], notes: [], written: new Map([[a, `@${job.callerName}`]]) };
    }
    return { addresses: [], notes: ['your address is no longer verified'], written: new Map() };
  }
  if (job.to) return { addresses: job.to, notes: [], written: new Map(job.to.map((a) => [a, a])) };
  return resolveStoredRecipients(db, owner, stored, authorship);
}

/** What a send goes to, as the log's trigger line names it (ad-hoc addresses as the sender wrote them). */
function triggerTarget(job: QueuedSend): string {
  if ((job.attempts ?? 1) > 1)
    return `resumed after an interruption (attempt ${job.attempts}); recipients already handed off are skipped`;
  if (job.action === 'test') return `test to the sender's own address (@${job.callerName})`;
  return job.to ? `send to ${job.to.length} ad-hoc address(es): ${job.to.join(', ')}` : 'send to the stored recipients';
}

/**
 * Delivers one job and records it (the trigger line first: the log reads in order); returns the final status (null when
 * the mail is gone). `bg` runs the delivery of its mail.sent event (the MailObject's own background); without it, that
 * is awaited before the answer.
 */
export async function deliverSend(
  env: Env,
  job: QueuedSend,
  transport: Transport = sendMail,
  bg?: Background,
): Promise<string | null> {
  const db = dbFor(env);
  let resource: Resource | undefined;
  const tally: Tally = { recipients: 0, delivered: 0, suppressed: 0, skipped: 0, failed: 0 };
  try {
    // The trigger line (first in the log), the mail, its owner, the caller and the entries
    // in one round trip; the line's insert fails the batch when the mail is gone.
    // (No join: D1 batch results are keyed by column name, so joined tables' ids would collide.)
    const [, mailRows, ownerRows, callerRows, entryRows] = await db.batch([
      logInsert(db, job.resourceId, `send ${job.id} triggered by ${job.callerName}: ${triggerTarget(job)}`),
      db.select().from(resources).where(eq(resources.id, job.resourceId)),
      db
        .select()
        .from(users)
        .where(
          eq(users.id, sql`(select ${resources.owner_id} from ${resources} where ${resources.id} = ${job.resourceId})`),
        ),
      db.select().from(users).where(eq(users.id, job.callerId)),
      entriesQuery(db, job.resourceId),
    ]);
    if (!mailRows[0] || !ownerRows[0]) return null;
    resource = mailRows[0];
    const mail = resource;
    const owner = ownerRows[0];
    const caller = callerRows[0];
    const values = await entryValues(env, entryRows);
    const authorship = entryAuthorship(entryRows);
    // A send to the stored lists acts for whoever wrote them too: the content resolves with their rights.
    const lent = job.action === 'send' && !job.to ? listWriters(values, authorship, owner.id) : [];
    const composed = await composeStored({ env, db, owner, resource }, values, authorship, lent);
    for (const p of composed.problems ?? []) await log(db, resource.id, `send ${job.id}: ${p}`, 'warning');
    const drawProblems: string[] = [];
    const attachments = await embedded(env, resource.id, composed, drawProblems);
    for (const p of drawProblems) await log(db, resource.id, `send ${job.id}: ${p}`, 'warning');
    if (composed.oversize) await log(db, resource.id, `send ${job.id}: ${oversizeNote(composed)}`, 'warning');
    // Documents of attachment blocks, rendered to PDF (section blocks, attach.ts).
    const docs = await documentAttachments(env, db, composed);
    attachments.push(...docs.attachments);
    for (const p of docs.problems) await log(db, resource.id, `send ${job.id}: ${p}`, 'warning');
    const { addresses, notes, written } = await recipientsOf(db, job, owner, caller, values, authorship);
    const as = (address: string) => written.get(address) ?? 'a recipient';
    for (const n of notes) await log(db, resource.id, `send ${job.id}: ${n}`, 'warning');
    tally.recipients = addresses.length;
    const limit = planOf(owner).recipients;
    let targets = addresses;
    if (job.action === 'send' && targets.length > limit) {
      tally.skipped = targets.length - limit;
      targets = targets.slice(0, limit);
      await log(
        db,
        resource.id,
        `send ${job.id}: ${tally.skipped} recipient(s) over the ${owner.plan} plan's limit of ${limit} were skipped`,
        'warning',
      );
    }
    if (job.action === 'send') {
      const suppressed = await suppressedAmong(db, owner.id, targets);
      tally.suppressed = suppressed.size;
      if (suppressed.size)
        await log(
          db,
          resource.id,
          `send ${job.id}: ${suppressed.size} unsubscribed, bounced or complaining address(es) suppressed: ${[...new Set([...suppressed].map(as))].join(', ')}`,
        );
      targets = targets.filter((a) => !suppressed.has(a));
    }
    const replyTo = composed.replyTo || (owner.email_verified && owner.email ? owner.email : '');
    const one = async (to: string) => {
      const unsubscribe = await unsubscribeUrl(env, db, { mail: mail.id, owner: owner.id, email: to, as: as(to) });
      const { html, text } = personalise(composed, unsubscribe, attachments);
      try {
        // Stable per send x recipient: the outbox holds it once, so a resumed send skips this
        // recipient if it was handed off before the interruption (and still counts it delivered).
        await transport(env, db, {
          messageId: await messageIdFor(env, job.id, to),
          resourceId: mail.id,
          kind: job.action === 'test' ? 'test' : 'mail',
          // A test is the caller's (to its own address); a send, the e-mail owner's.
          ownerId: job.action === 'test' ? job.callerId : owner.id,
          to: [to],
          subject: composed.subject,
          text,
          html,
          attachments,
          headers: {
            'List-Unsubscribe': `<${unsubscribe}>`,
            'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
            ...(replyTo ? { 'Reply-To': replyTo } : {}),
          },
        });
        tally.delivered++;
      } catch (err) {
        tally.failed++;
        await log(
          db,
          mail.id,
          `send ${job.id}: transport refused ${as(to)}: ${err instanceof Error ? err.message : String(err)}`,
          'error',
        );
      }
    };
    for (let i = 0; i < targets.length; i += PARALLEL) await Promise.all(targets.slice(i, i + PARALLEL).map(one));
    if (!targets.length) await log(db, resource.id, `send ${job.id}: no deliverable recipients`, 'warning');
  } catch (err) {
    if (!resource) return null;
    tally.failed = Math.max(1, tally.recipients - tally.delivered);
    await log(
      db,
      resource.id,
      `send ${job.id}: delivery broke off: ${err instanceof Error ? err.message : String(err)}`,
      'error',
    );
  }
  const status = runStatus(tally);
  const done = now();
  // The send's row, its log line and (a send, not a test) its mail.sent event: one batch.
  const event: PlatformEvent | null =
    job.action === 'send'
      ? {
          type: 'mail.sent',
          resourceId: resource.id,
          data: {
            mail: resource.name,
            run: job.id,
            status,
            delivered: tally.delivered,
            skipped: tally.skipped + tally.suppressed,
            failed: tally.failed,
          },
        }
      : null;
  const pending: Promise<unknown>[] = [];
  try {
    await batchWithEvent(
      env,
      db,
      bg ?? { waitUntil: (p) => void pending.push(p) },
      [
        db.insert(mailRuns).values({
          resource_id: resource.id,
          action: job.action,
          adhoc: !!job.to,
          created_by: job.callerName,
          started_on: new Date(job.acceptedOn).toISOString(),
          completed_on: nowIso(),
          duration: Math.round(Math.max(0, done - job.acceptedOn) / 10) / 100,
          status,
          ...tally,
          send_id: job.id,
        }),
        logInsert(
          db,
          resource.id,
          `send ${job.id} (${job.action}) ${status}: ${tally.delivered} delivered, ${tally.suppressed} suppressed, ${tally.skipped} skipped, ${tally.failed} failed`,
        ),
      ],
      event,
    );
  } catch (err) {
    console.error('mail run not recorded', err);
  }
  await Promise.all(pending);
  return status;
}
