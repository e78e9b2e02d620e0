/**
 * MailObject: one per e-mail, the single owner of its send state (ready, sending,
 * testing), the in-flight lock and the content-keyed rate window. Filled by the mail area.
 */
import { DurableObject } from 'cloudflare:workers';

export class MailObject extends DurableObject<Env> {
  async status(): Promise<string> {
    return (await this.ctx.storage.get<string>('status')) ?? 'ready';
  }
}
