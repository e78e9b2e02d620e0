/**
 * Pure rules of the mail area (no I/O; unit-tested on their own): recipient list syntax,
 * the send request body, the content-keyed rate window, plan limits and option values
 * (the yes/no words of config/enabled are the core's: src/core/yes-no.ts).
 */
import * as z from 'zod';
import { GROUP_NAME, USERNAME } from '../core/names';
import { once } from '../core/once';

// ---------------------------------------------------------------- option values

/** config/size: width of the message body in px. */
export const SIZES: Record<string, number> = { xs: 400, s: 600, m: 900, l: 1200 };
export const DEFAULT_SIZE = 'm';

// ---------------------------------------------------------------- plan limits

export interface PlanLimits {
  /** Resolved recipients one send reaches (after groups are expanded and duplicates merged). */
  recipients: number;
  /** Direct e-mail addresses: across recipients/to|cc|bcc, and in one ad-hoc `to`. */
  direct: number;
}

export const PLAN_LIMITS: Record<'free' | 'premium', PlanLimits> = {
  free: { recipients: 100, direct: 10 },
  premium: { recipients: 5000, direct: 500 },
};

/** The limits of a user's plan (free for a plan this table does not know). */
export const planOf = (u: { plan: keyof typeof PLAN_LIMITS }): PlanLimits => PLAN_LIMITS[u.plan] ?? PLAN_LIMITS.free;

// ---------------------------------------------------------------- addresses

const emailSchema = once(() => z.email().max(254));

export function isAddress(value: string): boolean {
  // Without an @ nothing is an address: junk words of a long list skip zod's error objects.
  return value.includes('@') && emailSchema().safeParse(value).success;
}

/** The form addresses are compared, keyed and suppressed in. */
export const normaliseAddress = (a: string): string => a.trim().toLowerCase();

// ---------------------------------------------------------------- recipient lists

export type RecipientItem =
  | { kind: 'address'; address: string }
  | { kind: 'user'; username: string }
  | { kind: 'group'; ref: string }
  | { kind: 'me' };

export interface Rejected {
  line: string;
  reason: string;
}

const USER_RE = new RegExp(`^@(${USERNAME.source.slice(1, -1)})$`);
const USER_GROUP_RE = new RegExp(`^@${USERNAME.source.slice(1, -1)}~${GROUP_NAME.source.slice(1, -1)}$`);
const ORG_GROUP_RE = new RegExp(`^\\+${GROUP_NAME.source.slice(1, -1)}~${GROUP_NAME.source.slice(1, -1)}$`);

/** One whitespace-separated item of a recipient list. */
function parseRecipientItem(token: string): RecipientItem | { reason: string } {
  if (token === 'me' || token === 'self') return { kind: 'me' };
  if (token.startsWith('@')) {
    if (USER_GROUP_RE.test(token)) return { kind: 'group', ref: token };
    const m = USER_RE.exec(token);
    if (m) return { kind: 'user', username: m[1]! };
    return { reason: 'expected @user or @user~group (lowercase letters, digits, _; group names also -)' };
  }
  if (token.startsWith('+')) {
    if (ORG_GROUP_RE.test(token)) return { kind: 'group', ref: token };
    return { reason: 'expected +org~group (a whole organisation is not a recipient)' };
  }
  if (isAddress(token)) return { kind: 'address', address: token };
  return { reason: 'not an e-mail address, @user, @user~group, +org~group, me or self' };
}

/** A whole list: every item parsed, every bad one named. */
export function parseRecipientList(text: string): {
  items: { line: string; item: RecipientItem }[];
  rejected: Rejected[];
} {
  const items: { line: string; item: RecipientItem }[] = [];
  const rejected: Rejected[] = [];
  for (const token of text.split(/\s+/).filter(Boolean)) {
    const item = parseRecipientItem(token);
    if ('reason' in item) rejected.push({ line: token, reason: item.reason });
    else items.push({ line: token, item });
  }
  return { items, rejected };
}

export const RECIPIENT_LISTS = ['to', 'cc', 'bcc'] as const;
export type RecipientList = (typeof RECIPIENT_LISTS)[number];

/** What makes two items the same recipient (addresses compared normalised). */
function itemKey(item: RecipientItem): string {
  if (item.kind === 'address') return `address ${normaliseAddress(item.address)}`;
  return item.kind === 'user' ? `@${item.username}` : item.kind === 'group' ? item.ref : 'me';
}

/**
 * The items of `text` that none of the stored lists (`recipients/<list>` -> text) holds
 * yet: the recipients a write adds. The owner (`me`) is never counted as added.
 */
export function addedRecipients(text: string, stored: Map<string, string>): { line: string; item: RecipientItem }[] {
  const before = new Set(
    RECIPIENT_LISTS.flatMap((l) =>
      parseRecipientList(stored.get(`recipients/${l}`) ?? '').items.map((i) => itemKey(i.item)),
    ),
  );
  return parseRecipientList(text).items.filter((i) => i.item.kind !== 'me' && !before.has(itemKey(i.item)));
}

// ---------------------------------------------------------------- send requests

export type SendAction = 'send' | 'test';

export interface SendRequest {
  action: SendAction;
  /** Ad-hoc recipients (normalised, unique, sorted) replacing the stored lists for this send. */
  to?: string[];
}

export class SendRequestError extends Error {}

/** A bare text body: `test...` is a test send, anything else a production send. */
export function parseSendText(body: string): SendRequest {
  const value = body.trim();
  if (!value) throw new SendRequestError('empty body: send sent (production send) or test (test send)');
  return { action: value.startsWith('test') ? 'test' : 'send' };
}

const sendJson = once(() =>
  z
    .object({
      action: z.string().optional(),
      to: z.unknown().optional(),
    })
    .strict(),
);

/** A JSON body {action?, to?} by the send's rules (docs/areas/mail.md); any other shape is a SendRequestError (400). */
export function parseSendJson(body: unknown): SendRequest {
  const parsed = sendJson().safeParse(body);
  if (!parsed.success) {
    if (typeof body !== 'object' || body === null || Array.isArray(body))
      throw new SendRequestError('expected a JSON object {action, to}');
    const extra = Object.keys(body).filter((k) => k !== 'action' && k !== 'to');
    if (extra.length)
      throw new SendRequestError(`unsupported field(s) ${extra.join(', ')}: only action and to are accepted`);
    throw new SendRequestError('action must be a string');
  }
  const { action = 'send', to } = parsed.data;
  if (action !== 'send' && action !== 'test')
    throw new SendRequestError(`unknown action '${action}': use send or test`);
  if (to === undefined) return { action };
  if (action === 'test')
    throw new SendRequestError('a test send goes only to your own address: to is not accepted with action test');
  if (!Array.isArray(to)) throw new SendRequestError('to must be an array of e-mail addresses');
  if (!to.length) throw new SendRequestError('to is empty: give at least one e-mail address');
  const bad = to.filter((a) => typeof a !== 'string' || !isAddress(a));
  if (bad.length)
    throw new SendRequestError(
      `invalid address(es) in to: ${bad.map((b) => JSON.stringify(b)).join(', ')} (only direct e-mail addresses)`,
    );
  return { action, to: [...new Set((to as string[]).map(normaliseAddress))].sort() };
}

/**
 * What the in-flight lock and the rate window key a send on: `list` for the stored
 * recipient lists, the recipient set for an ad-hoc send, `test` for a test send.
 */
export function recipientKey(req: SendRequest): string {
  if (req.action === 'test') return 'test';
  return req.to ? `to:${req.to.join(',')}` : 'list';
}

// ---------------------------------------------------------------- rate window

export const WINDOW_MS = 30 * 60 * 1000;
const WINDOW_MAX = 10;

export type WindowCheck = { ok: true; kept: number[] } | { ok: false; kept: number[]; retryAfterSeconds: number };

/** At most WINDOW_MAX accepted sends in any WINDOW_MS: drops expired stamps and decides. */
export function checkWindow(stamps: number[], now: number): WindowCheck {
  const kept = stamps.filter((t) => t > now - WINDOW_MS).sort((a, b) => a - b);
  if (kept.length < WINDOW_MAX) return { ok: true, kept };
  const frees = kept[kept.length - WINDOW_MAX]! + WINDOW_MS;
  return { ok: false, kept, retryAfterSeconds: Math.max(1, Math.ceil((frees - now) / 1000)) };
}

// ---------------------------------------------------------------- run outcome

export interface Tally {
  recipients: number;
  delivered: number;
  suppressed: number;
  skipped: number;
  failed: number;
}

/** delivered: everyone reached; partial: some reached, some failed or over the plan; failed: nobody reached. */
export function runStatus(t: Tally): 'delivered' | 'partial' | 'failed' {
  if (t.delivered === 0) return 'failed';
  return t.failed || t.skipped ? 'partial' : 'delivered';
}
