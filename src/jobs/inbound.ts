/**
 * Inbound org-group mail (the email() handler): the message is parsed with postal-mime (in
 * the libraries isolate: core/libraries.ts),
 * the address resolved to its organisation group, the sender (the address of the From
 * header, the identity DKIM and SPF alignment authenticate: mail-auth.ts) checked against
 * the group's accepted members with a verified address; then every job shared with the
 * group runs with the message as input, acting for that member only when the receiver
 * authenticated the sender (else for nobody: the claimed address is recorded as unverified). Replies (kind `reply`) go only to a sender that
 * passed aligned DKIM or aligned SPF, whatever the group's options: anything else may be
 * forged, and a reply to it would be backscatter.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { Email } from 'postal-mime';
import { dbFor, type Db } from '../core/context';
import { libraries } from '../core/libraries';
import { sendMail } from '../core/mailer';
import { MiB } from '../core/http';
import { resources, shares, type Group, type Resource } from '../db/schema';
import { groupForInboundAddress } from '../groups/inbound';
import { activeMembers } from '../groups/members';
import { optionIsOn } from '../groups/profile';
import { liveShare } from '../core/perms';
import { NOBODY } from '../core/resource';
import { authenticated, authRefusal, DEFAULT_AUTHSERV_ID, mailAuth, type MailAuth } from './mail-auth';
import { cleanName, textFile, uniqueNames, type RunFile } from './files';
import { rejectRun, startRun } from './trigger';

/** Larger messages are refused before parsing. */
const INBOUND_LIMIT = 25 * MiB;

export interface InboundMessage {
  /** The From header's address (the authenticated identity), else the envelope sender. */
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  attachments: RunFile[];
  /** DKIM and SPF as the platform's receiver (`authservId`) reported them (mail-auth.ts). */
  auth: MailAuth;
}

/** The message of a parsed RFC 822 message (postal-mime's, attachments as ArrayBuffers). */
export function inboundMessage(
  email: Email,
  envelopeFrom: string,
  envelopeTo: string,
  authservId = DEFAULT_AUTHSERV_ID,
): InboundMessage {
  const auth = mailAuth(email.headers, authservId);
  return {
    from: auth.from || envelopeFrom.trim().toLowerCase(),
    to: envelopeTo,
    subject: email.subject ?? '',
    text: email.text ?? '',
    html: email.html ?? '',
    auth,
    attachments: uniqueNames(
      email.attachments.map((a, i) => ({
        name: cleanName(a.filename ?? '', `attachment-${i + 1}`),
        type: a.mimeType || 'application/octet-stream',
        data: a.content as ArrayBuffer,
      })),
    ),
  };
}

/** The run input of a mail: input.json {from, to, subject, text, html} plus each attachment. */
export function mailInput(m: InboundMessage): RunFile[] {
  const json = textFile(
    'input.json',
    JSON.stringify({ from: m.from, to: m.to, subject: m.subject, text: m.text, html: m.html }),
    'application/json',
  );
  return uniqueNames([json, ...m.attachments]);
}

/** Jobs shared with the group by an owner who still holds an active role in it. */
async function sharedJobs(db: Db, group: Group): Promise<Resource[]> {
  return db
    .select({ r: resources })
    .from(shares)
    .innerJoin(resources, eq(resources.id, shares.resource_id))
    .where(
      and(
        eq(shares.group_id, group.id),
        eq(resources.kind, 'job'),
        liveShare(sql`${shares.group_id}`, sql`${resources.owner_id}`),
      ),
    )
    .then((rows) => rows.map((x) => x.r));
}

const reSubject = (s: string) => (/^re:/i.test(s) ? s : `Re: ${s || '(no subject)'}`);
const html = (text: string) => `<p>${text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/\n/g, '<br>')}</p>`;

type Attachment = { filename: string; content_type: string; content: Uint8Array };

/** Answers the sender; `ownerId`: the account whose reply it is (a job's owner, or the member), none for a stranger. */
async function reply(
  env: Env,
  db: Db,
  ownerId: number | null,
  to: string,
  subject: string,
  text: string,
  attachments: Attachment[] = [],
) {
  try {
    await sendMail(env, db, {
      kind: 'reply',
      ownerId,
      to: [to],
      subject: reSubject(subject),
      text,
      html: html(text),
      attachments,
    });
  } catch (err) {
    console.error('inbound reply failed', err);
  }
}

/** Handles one inbound message end to end. */
export async function handleInbound(
  env: Env,
  raw: ArrayBuffer,
  from: string,
  to: string,
): Promise<'rejected' | 'unknown' | 'accepted' | 'malformed'> {
  const db = dbFor(env);
  const target = await groupForInboundAddress(env, db, to.toLowerCase());
  if (!target) return 'unknown';
  let msg: InboundMessage;
  try {
    const email = await libraries(env).parseMail(raw);
    msg = inboundMessage(email, from, to, env.MAIL_AUTHSERV_ID || DEFAULT_AUTHSERV_ID);
  } catch (err) {
    // Nothing runs and nobody is replied to: the SMTP rejection tells the sender.
    console.warn(`inbound mail to ${to} from ${from} could not be parsed: ${(err as Error).message}`);
    return 'malformed';
  }
  const [jobs, verifyDkim, verifySpf] = await Promise.all([
    sharedJobs(db, target.group),
    optionIsOn(db, target.group.id, 'mail_verify_dkim'),
    optionIsOn(db, target.group.id, 'mail_verify_spf'),
  ]);
  // The sender is the From header's address: the identity DKIM and SPF alignment vouch for.
  const sender = msg.auth.from;
  const createdBy = sender || from.trim().toLowerCase();
  // Only an authenticated sender is answered (with the checks off too): anything else may be forged.
  const answer = authenticated(msg.auth)
    ? (text: string, attachments?: Attachment[], ownerId: number | null = null) =>
        reply(env, db, ownerId, sender, msg.subject, text, attachments)
    : async () => {};
  const refuse = (reason: string) =>
    Promise.all(jobs.map((job) => rejectRun(env, { job, trigger: 'email', source: 'email', createdBy }, reason)));
  const unauthenticated = authRefusal(msg.auth, { dkim: verifyDkim, spf: verifySpf });
  if (unauthenticated) {
    await refuse(`message from ${createdBy} rejected: ${unauthenticated}`);
    return 'rejected';
  }
  if (!sender) {
    await refuse(`message from ${createdBy} rejected: it has no single From address`);
    return 'rejected';
  }
  const member = (await activeMembers(db, target.group.id)).find(
    (m) => m.user.email_verified && m.user.email?.toLowerCase() === sender,
  );
  if (!member) {
    const reason = `${sender} is not an accepted member of ${target.group.ref} with that verified address`;
    await refuse(reason);
    await answer(`Your message to ${to} was rejected: ${reason}. No job ran.`);
    return 'rejected';
  }
  if (!jobs.length) {
    await answer(`No job is shared with ${target.group.ref}: nothing ran.`, [], member.user.id);
    return 'accepted';
  }
  const input = mailInput(msg);
  // Only a sender the receiver authenticated lends a member's authority (job.inbound): a message
  // whose From nobody vouched for runs the jobs (the group's checks are off) acting for nobody.
  const vouched = authenticated(msg.auth);
  await Promise.all(
    jobs.map(async (job) => {
      const out = await startRun(env, {
        job,
        trigger: 'email',
        source: 'email',
        createdBy: vouched ? member.user.username : `${sender} (unverified)`,
        callerId: vouched ? member.user.id : NOBODY,
        input,
      });
      const what = `Run ${out.name} of job ${job.name}`;
      if (out.status === 'success') {
        const attachments = out.bundle
          ? [{ filename: out.bundle.filename, content_type: out.bundle.type, content: new Uint8Array(out.bundle.data) }]
          : [];
        await answer(
          `${what} succeeded${out.bundle ? `: its output ${out.bundle.filename} is attached.` : ' without output.'}`,
          attachments,
          job.owner_id,
        );
      } else if (out.status === 'canceled') {
        await answer(`${what} was canceled: no output.`, [], job.owner_id);
      } else {
        await answer(`${what} failed: ${out.message}`, [], job.owner_id);
      }
    }),
  );
  return 'accepted';
}

/** The email() handler. */
export async function handleInboundEmail(
  message: ForwardableEmailMessage,
  env: Env,
  ctx: ExecutionContext,
): Promise<void> {
  void ctx;
  if (message.rawSize > INBOUND_LIMIT) {
    message.setReject(`message too large: at most ${INBOUND_LIMIT} bytes`);
    return;
  }
  const raw = await new Response(message.raw).arrayBuffer();
  const outcome = await handleInbound(env, raw, message.from, message.to);
  if (outcome === 'unknown') message.setReject('no group accepts mail at this address');
  if (outcome === 'malformed') message.setReject('the message could not be parsed as MIME');
}
