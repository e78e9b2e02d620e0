/** Waking an endpoint's Durable Object (one per endpoint, named by its id): it delivers what is due. */

export async function wake(env: Env, webhookId: number): Promise<void> {
  await env.WEBHOOKS.get(env.WEBHOOKS.idFromName(String(webhookId))).wake(webhookId);
}
