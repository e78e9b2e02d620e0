/**
 * The gate an e-mail's sends pass, as its MailObject keeps it: the in-flight lock (one
 * send per recipient key at a time) and the content-keyed rate window. Pure: the object
 * reads its storage, asks here, and writes back what changed.
 */
import type { QueuedSend } from './delivery';
import { checkWindow } from './rules';

export interface SendInput {
  job: Omit<QueuedSend, 'id' | 'acceptedOn'>;
  /** Rate window key (content and, for ad-hoc sends, recipient set); null for test sends. */
  windowKey: string | null;
  /** config/enabled is not falsy (ignored for test sends). */
  enabled: boolean;
}

export type Refusal = { status: 425 | 429 | 403; message: string; retry_after_seconds?: number };
export type SendOutcome = { status: 202; id: string; state: string } | Refusal;

export type MailState = 'ready' | 'sending' | 'testing';

/** Send id by in-flight key. */
export type InFlight = Record<string, string>;
/** Send times (ms) by rate window key. */
export type Windows = Record<string, number[]>;

export function mailState(inflight: InFlight): MailState {
  const keys = Object.keys(inflight);
  if (keys.some((k) => k !== 'test')) return 'sending';
  return keys.length ? 'testing' : 'ready';
}

/** Checks 4 to 6 of the send order (docs/areas/mail.md) at time `t`: why the send is refused, or null. */
export function refusal(input: SendInput, inflight: InFlight, windows: Windows | null, t: number): Refusal | null {
  const { job, windowKey } = input;
  if (inflight[job.key]) {
    const what =
      job.key === 'test'
        ? 'a test send'
        : job.key === 'list'
          ? 'a send to the stored recipients'
          : 'a send to these recipients';
    return { status: 425, message: `${what} of this e-mail is in flight: try again when status is ready` };
  }
  if (!windowKey || !windows) return null;
  const w = checkWindow(windows[windowKey] ?? [], t);
  if (!w.ok) {
    return {
      status: 429,
      message: `this content was sent 10 times in the last 30 minutes: retry in ${w.retryAfterSeconds} s, or change the e-mail`,
      retry_after_seconds: w.retryAfterSeconds,
    };
  }
  if (!input.enabled)
    return { status: 403, message: 'config/enabled is off: enable the e-mail (POST config/enabled true) to send it' };
  return null;
}

/** The windows after a send of `windowKey` accepted at `t`: expired times dropped, this one added. */
export function stamped(windows: Windows, windowKey: string, t: number): Windows {
  const out: Windows = {};
  for (const [k, v] of Object.entries(windows)) {
    const kept = checkWindow(v, t).kept;
    if (kept.length) out[k] = kept;
  }
  out[windowKey] = [...(out[windowKey] ?? []), t];
  return out;
}

/** A send's id: its acceptance time to the second, then 8 random hex digits. */
export const sendId = (t: number): string =>
  `${new Date(t).toISOString().replace(/\D/g, '').slice(0, 14)}-${crypto.randomUUID().slice(0, 8)}`;
