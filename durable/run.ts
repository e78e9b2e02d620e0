/**
 * RunObject: one per job run, the single owner of the run's state machine
 * (processing → success | failed | canceling → canceled). Filled by the jobs area.
 */
import { DurableObject } from 'cloudflare:workers';

export class RunObject extends DurableObject<Env> {
  async status(): Promise<string | null> {
    return (await this.ctx.storage.get<string>('status')) ?? null;
  }
}
