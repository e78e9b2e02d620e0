/**
 * POST status of an e-mail: the send. Checks 1-3 of the order in docs/areas/mail.md ("Sending")
 * are made here, 4-6 are decided by the e-mail's MailObject, which accepts and queues the send.
 */
import { badRequest, forbidden, HttpError, notFound } from '../core/errors';
import { sha256Hex } from '../core/crypto';
import { jsonResponse, KiB, mediaType, readJson, readText } from '../core/http';
import { appendLog } from '../core/log';
import type { ResourceCtx } from '../core/resource';
import { yesNo } from '../core/yes-no';
import { assetTags } from './assets';
import { composeStored, contentKey } from './compose';
import { mailStub } from './stub';
import { listWriters } from './recipients';
import { parseSendJson, parseSendText, planOf, recipientKey, SendRequestError, type SendRequest } from './rules';

async function readSendRequest(rc: ResourceCtx): Promise<SendRequest> {
  try {
    if (mediaType(rc.req) === 'application/json') return parseSendJson(await readJson(rc.req, 64 * KiB));
    return parseSendText(await readText(rc.req, 64 * KiB));
  } catch (err) {
    if (err instanceof SendRequestError) throw badRequest(err.message);
    throw err;
  }
}

export async function send(rc: ResourceCtx): Promise<Response> {
  if (!rc.access.owner) throw notFound(`no such e-mail: ${rc.resource.name}`); // 1: only the owner sends
  const who = rc.caller!.username;
  // Rejections are logged after the answer: a burst of held re-fires must not queue on log writes.
  const reject = async (err: HttpError): Promise<never> => {
    rc.exec.waitUntil(
      appendLog(rc.db, rc.resource.id, `send by ${who} rejected (${err.status}): ${err.message}`, 'warning').catch(
        () => undefined,
      ),
    );
    throw err;
  };
  let req: SendRequest;
  try {
    req = await readSendRequest(rc);
  } catch (err) {
    if (err instanceof HttpError) return reject(err);
    throw err;
  }
  // The caller as D1 has it now (not the auth cache) and the mail's entries came with the
  // mail itself (preload): one D1 round trip before the MailObject decides.
  const caller = rc.preloaded?.caller ?? rc.caller!;
  if (!caller.email || !caller.email_verified)
    return reject(forbidden('verify your own e-mail address before sending')); // check 3
  const allowance = planOf(caller).direct;
  if (req.to && req.to.length > allowance) {
    return reject(
      badRequest(
        `to names ${req.to.length} addresses: the ${caller.plan} plan allows ${allowance} direct addresses per send`,
      ),
    );
  }
  const key = recipientKey(req);
  let windowKey: string | null = null;
  let enabled = true;
  if (req.action === 'send') {
    const values = rc.preloaded?.entries ?? new Map<string, string>();
    const authorship = rc.preloaded?.authorship ?? new Map();
    enabled = yesNo(values.get('config/enabled'), true);
    const lent = req.to ? [] : listWriters(values, authorship, rc.owner.id);
    const composed = await composeStored(rc, values, authorship, lent);
    windowKey = await sha256Hex(
      `${await contentKey(composed, await assetTags(rc.env, rc.resource.id, composed.assets))}|${key}`,
    );
  }
  const outcome = await mailStub(rc.env, rc.resource.id).accept({
    job: {
      action: req.action,
      key,
      resourceId: rc.resource.id,
      callerId: caller.id,
      callerName: who,
      ...(req.to ? { to: req.to } : {}),
    },
    windowKey,
    enabled,
  });
  if (outcome.status !== 202) {
    return reject(
      new HttpError(
        outcome.status,
        outcome.message,
        outcome.retry_after_seconds ? { retry_after_seconds: outcome.retry_after_seconds } : {},
      ),
    );
  }
  // The trigger line is the first thing delivery logs (off the acceptance path).
  return jsonResponse(
    { status: 202, message: `accepted: ${outcome.state}`, id: outcome.id, state: outcome.state },
    { status: 202 },
  );
}
