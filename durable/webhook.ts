/**
 * WebhookObject: one per webhook endpoint (named by its id), the single deliverer of its
 * deliveries, so they go out one at a time in the order they fell due and a
 * failing endpoint delays no other. `wake` only arms the alarm, GATHER_MS ahead, so a burst
 * of events goes out in one pass; the alarm delivers what is due (src/webhooks/attempts.ts)
 * and re-arms itself for the next retry. A wake while a pass runs only asks for one more
 * pass: no storage write per event. Alarms survive restarts: an alarm cut off by a kill
 * runs again (and with it the pass it was asked for; the scheduled() sweep catches the rest).
 */
import { DurableObject } from 'cloudflare:workers';
import { now } from '../src/core/clock';
import { runDue } from '../src/webhooks/attempts';
import { alarmBy, GATHER_MS } from '../src/webhooks/schedule';

export class WebhookObject extends DurableObject<Env> {
  /** A pass runs (the alarm); `again`: a wake came during it, so one more pass follows. */
  private running = false;
  private again = false;

  /** Something is due for endpoint `webhookId`: deliver it soon. */
  async wake(webhookId: number): Promise<void> {
    if (this.ctx.storage.kv.get<number>('webhook') !== webhookId) this.ctx.storage.kv.put('webhook', webhookId);
    if (this.running) {
      this.again = true;
      return;
    }
    await this.armBy(Date.now() + GATHER_MS);
  }

  override async alarm(): Promise<void> {
    const webhookId = this.ctx.storage.kv.get<number>('webhook');
    if (webhookId === undefined) return;
    let next: number | null;
    this.running = true;
    try {
      do {
        this.again = false;
        next = await runDue(this.env, webhookId);
      } while (this.again);
    } finally {
      this.running = false;
    }
    // Platform time (which tests move) to the alarm's wall clock; never later than an alarm
    // a wake set meanwhile.
    if (next !== null) await this.armBy(Date.now() + Math.max(0, next - now()));
  }

  private async armBy(at: number): Promise<void> {
    const set = alarmBy(await this.ctx.storage.getAlarm(), at);
    if (set !== null) await this.ctx.storage.setAlarm(set);
  }
}
