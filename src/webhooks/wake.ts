/** Waking an endpoint's Durable Object (one per endpoint, named by its id): it delivers what is due. */
import { webhookStub } from './stub';

export async function wake(env: Env, webhookId: number): Promise<void> {
  await webhookStub(env, webhookId).wake(webhookId);
}
