/**
 * MailObject: one per e-mail, the single owner of its send state (ready, sending,
 * testing), the in-flight lock and the content-keyed rate window. `accept` decides
 * synchronously on the object's storage (no await before the decision), so concurrent
 * requests are decided exactly; delivery runs later in the alarm.
 */
import { DurableObject } from 'cloudflare:workers';
import { clockOffset, now } from '../src/core/clock';
import { deliverSend, type QueuedSend } from '../src/mail/delivery';
import {
  mailState,
  refusal,
  sendId,
  stamped,
  type InFlight,
  type MailState,
  type SendInput,
  type SendOutcome,
  type Windows,
} from '../src/mail/send-gate';

export class MailObject extends DurableObject<Env> {
  private get kv(): SyncKvStorage {
    return this.ctx.storage.kv;
  }

  private inFlight(): InFlight {
    return this.kv.get<InFlight>('inflight') ?? {};
  }

  status(): MailState {
    return mailState(this.inFlight());
  }

  /** Checks 4 to 6 of the send order (docs/areas/mail.md), decided atomically; accepts and queues the send. */
  accept(input: SendInput): SendOutcome {
    const { job, windowKey } = input;
    const inflight = this.inFlight();
    const t = now();
    const windows = windowKey ? (this.kv.get<Windows>('windows') ?? {}) : null;
    const refused = refusal(input, inflight, windows, t);
    if (refused) return refused;
    const id = sendId(t);
    const queue = this.kv.get<QueuedSend[]>('queue') ?? [];
    queue.push({ ...job, id, acceptedOn: t });
    inflight[job.key] = id;
    this.kv.put('queue', queue);
    this.kv.put('inflight', inflight);
    if (windows && windowKey) this.kv.put('windows', stamped(windows, windowKey, t));
    void this.ctx.storage.setAlarm(Date.now());
    return { status: 202, id, state: this.status() };
  }

  override async alarm(): Promise<void> {
    for (;;) {
      const queue = this.kv.get<QueuedSend[]>('queue') ?? [];
      const head = queue[0];
      if (!head) return;
      // Counted durably before delivery starts: a send interrupted by a hard kill is resumed
      // by the next alarm as attempt 2 (its recipients' hand-offs are idempotent, see deliverSend).
      const job: QueuedSend = { ...head, attempts: (head.attempts ?? 0) + 1 };
      this.kv.put('queue', [job, ...queue.slice(1)]);
      try {
        await deliverSend(this.env, job, undefined, this.ctx);
      } catch (err) {
        console.error('mail delivery', err);
      }
      this.kv.put(
        'queue',
        (this.kv.get<QueuedSend[]>('queue') ?? []).filter((j) => j.id !== job.id),
      );
      const inflight = this.inFlight();
      if (inflight[job.key] === job.id) delete inflight[job.key];
      this.kv.put('inflight', inflight);
    }
  }

  /** Forgets everything (the e-mail is being deleted). */
  async clear(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  /** The clock offset this object sees (tests check it runs in the test's isolate). */
  clockOffset(): number {
    return clockOffset();
  }
}
