/**
 * WebhookObject: one per webhook endpoint (named by its id), the single deliverer of its
 * deliveries, so they go out one at a time in the order their events happened and a
 * failing endpoint delays no other. `wake` only arms the alarm; the alarm delivers what is
 * due (src/webhooks/deliver.ts) and re-arms itself for the next retry. Alarms survive
 * restarts: an alarm cut off by a kill runs again.
 */
import { DurableObject } from 'cloudflare:workers';
import { now } from '../src/core/clock';
import { runDue } from '../src/webhooks/deliver';

export class WebhookObject extends DurableObject<Env> {
  /** Something is due for endpoint `webhookId`: deliver it soon. */
  async wake(webhookId: number): Promise<void> {
    if (this.ctx.storage.kv.get<number>('webhook') !== webhookId) this.ctx.storage.kv.put('webhook', webhookId);
    const armed = await this.ctx.storage.getAlarm();
    if (armed === null || armed > Date.now()) await this.ctx.storage.setAlarm(Date.now());
  }

  override async alarm(): Promise<void> {
    const webhookId = this.ctx.storage.kv.get<number>('webhook');
    if (webhookId === undefined) return;
    const next = await runDue(this.env, webhookId);
    // Platform time (which tests move) to the alarm's wall clock.
    if (next === null) return;
    // Never later than an alarm a wake set meanwhile (a delivery recorded while this one ran).
    const at = Date.now() + Math.max(0, next - now());
    const armed = await this.ctx.storage.getAlarm();
    if (armed === null || armed > at) await this.ctx.storage.setAlarm(at);
  }
}
