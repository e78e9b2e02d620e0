/** An e-mail's Durable Object by its resource id: the MailObject (durable/mail.ts) that owns its send state. */

/** The Durable Object of the e-mail `resourceId` (typed by the MAILS binding: src/ never imports durable/). */
export function mailStub(env: Env, resourceId: number) {
  return env.MAILS.get(env.MAILS.idFromName(String(resourceId)));
}
