/** A webhook endpoint's Durable Object by its id: the WebhookObject (durable/webhook.ts) that delivers to it. */

/** The Durable Object of the endpoint `webhookId` (typed by the WEBHOOKS binding: src/ never imports durable/). */
export function webhookStub(env: Env, webhookId: number) {
  return env.WEBHOOKS.get(env.WEBHOOKS.idFromName(String(webhookId)));
}
