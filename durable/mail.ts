/**
 * MailObject: one per e-mail, the single owner of its send state (ready, sending,
 * testing), the in-flight lock and the content-keyed rate window. `trigger` decides
 * synchronously on the object's storage (no await before the decision), so concurrent
 * requests are decided exactly; delivery runs later in the alarm.
 */
import { DurableObject } from 'cloudflare:workers';
import { clockOffset, now } from '../src/core/clock';
import { runJob, type MailJob } from '../src/mail/delivery';
import { checkWindow } from '../src/mail/rules';

export interface TriggerInput {
  job: Omit<MailJob, 'id' | 'acceptedOn'>;
  /** Rate window key (content and, for ad-hoc sends, recipient set); null for test sends. */
  windowKey: string | null;
  /** config/enabled is not falsy (ignored for test sends). */
  enabled: boolean;
}

export type TriggerOutcome =
  | { status: 202; id: string; state: string }
  | { status: 425 | 429 | 403; message: string; retry_after_seconds?: number };

export type MailState = 'ready' | 'sending' | 'testing';

type InFlight = Record<string, string>;
type Windows = Record<string, number[]>;

export class MailObject extends DurableObject<Env> {
  private get kv(): SyncKvStorage {
    return this.ctx.storage.kv;
  }

  private inFlight(): InFlight {
    return this.kv.get<InFlight>('inflight') ?? {};
  }

  status(): MailState {
    const keys = Object.keys(this.inFlight());
    if (keys.some((k) => k !== 'test')) return 'sending';
    return keys.length ? 'testing' : 'ready';
  }

  /** Steps 3 to 5 of the validation order, decided atomically; accepts and queues the send. */
  trigger(input: TriggerInput): TriggerOutcome {
    const { job, windowKey } = input;
    const inflight = this.inFlight();
    if (inflight[job.key]) {
      const what = job.key === 'test' ? 'a test send' : job.key === 'list' ? 'a send to the stored recipients' : 'a send to these recipients';
      return { status: 425, message: `${what} of this e-mail is in flight: try again when status is ready` };
    }
    const t = now();
    let windows: Windows | null = null;
    if (windowKey) {
      windows = this.kv.get<Windows>('windows') ?? {};
      const w = checkWindow(windows[windowKey] ?? [], t);
      if (!w.ok) {
        return {
          status: 429,
          message: `this content was sent 10 times in the last 30 minutes: retry in ${w.retryAfterSeconds} s, or change the e-mail`,
          retry_after_seconds: w.retryAfterSeconds,
        };
      }
      if (!input.enabled) return { status: 403, message: 'config/enabled is off: enable the e-mail (POST config/enabled true) to send it' };
      for (const [k, v] of Object.entries(windows)) {
        const kept = checkWindow(v, t).kept;
        if (kept.length) windows[k] = kept;
        else delete windows[k];
      }
      windows[windowKey] = [...(windows[windowKey] ?? []), t];
    }
    const id = `${new Date(t).toISOString().replace(/\D/g, '').slice(0, 14)}-${crypto.randomUUID().slice(0, 8)}`;
    const queue = this.kv.get<MailJob[]>('queue') ?? [];
    queue.push({ ...job, id, acceptedOn: t });
    inflight[job.key] = id;
    this.kv.put('queue', queue);
    this.kv.put('inflight', inflight);
    if (windows) this.kv.put('windows', windows);
    void this.ctx.storage.setAlarm(Date.now());
    return { status: 202, id, state: this.status() };
  }

  override async alarm(): Promise<void> {
    for (;;) {
      const queue = this.kv.get<MailJob[]>('queue') ?? [];
      const head = queue[0];
      if (!head) return;
      // Counted durably before delivery starts: a send interrupted by a hard kill is resumed
      // by the next alarm as attempt 2 (its recipients' hand-offs are idempotent, see runJob).
      const job: MailJob = { ...head, attempts: (head.attempts ?? 0) + 1 };
      this.kv.put('queue', [job, ...queue.slice(1)]);
      try {
        await runJob(this.env, job);
      } catch (err) {
        console.error('mail delivery', err);
      }
      this.kv.put('queue', (this.kv.get<MailJob[]>('queue') ?? []).filter((j) => j.id !== job.id));
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
