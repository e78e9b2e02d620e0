/** Waking an endpoint's Durable Object (one per endpoint, named by its id): it delivers what is due. */
import { GATHER_MS } from './schedule';
import { webhookStub } from './stub';

export async function wake(env: Env, webhookId: number): Promise<void> {
  await webhookStub(env, webhookId).wake(webhookId);
}

/** The endpoints this isolate will wake shortly: an event recorded before its wake is sent rides on it. */
const pending = new Set<number>();

/**
 * Wakes the endpoint GATHER_MS from now, once for every event this isolate records until
 * then: a burst of writes costs the endpoint's object one call, not one per event. The
 * endpoint leaves `pending` before its call is sent, so every event is either committed
 * before a call (whose pass, later still, reads it) or starts a call of its own. Answers
 * the call to wait for, or null when the event rides on one already on its way.
 */
export function wakeSoon(env: Env, webhookId: number): Promise<void> | null {
  if (pending.has(webhookId)) return null;
  pending.add(webhookId);
  return new Promise<void>((ok) => setTimeout(ok, GATHER_MS)).then(() => {
    pending.delete(webhookId);
    return wake(env, webhookId);
  });
}
