/** status of an e-mail: its send state, and sending it by POST (the send itself: send.ts). */
import * as z from 'zod';
import { text } from '../core/examples';
import { textResponse } from '../core/http';
import type { ResourceRoutes } from '../core/resource';
import { mailStub } from './stub';
import { send } from './send';
import { once } from '../core/once';

/** The send state of an e-mail (send-gate.ts MailState), as GET status answers it. */
const sendState = once(() =>
  z.enum(['ready', 'sending', 'testing']).meta({
    id: 'SendState',
    description: 'The send state of an e-mail (text/plain): ready, or a send or a test in flight',
    example: 'ready',
  }),
);

export function statusRoutes(r: ResourceRoutes): void {
  r.get('/status', {
    summary: 'Send state: ready, sending or testing',
    need: 'r',
    responses: { 200: { description: 'ready, sending or testing', type: 'text/plain', schema: sendState } },
    handler: async (rc) => textResponse(await mailStub(rc.env, rc.resource.id).status()),
  });
  r.post('/status', {
    summary: 'Send: text sent|test, or JSON {action: send|test, to?: [addresses]}',
    need: 'r',
    body: {
      type: 'text/plain',
      description: 'sent or test; or application/json {action, to}',
      schema: () => text('sent'),
    },
    responses: {
      202: {
        description: 'Accepted; delivery is asynchronous',
        type: 'application/json',
        schema: () =>
          z
            .object({
              status: z.literal(202),
              message: z.string(),
              id: z.string(),
              state: z.enum(['sending', 'testing']),
            })
            .meta({
              id: 'Send',
              description: 'A send (or a test send) accepted: its id, and the state the e-mail is now in',
              example: { status: 202, message: 'accepted: sending', id: '20251002093000-5e1f9a0c', state: 'sending' },
            }),
      },
      400: { description: 'Malformed body, unknown action, bad to' },
      403: { description: "Caller's address unverified, or config/enabled falsy" },
      404: { description: 'Not the owner' },
      425: { description: 'A send is in flight' },
      429: { description: 'More than 10 sends of this content in 30 minutes (retry_after_seconds)' },
    },
    preload: { entries: true, caller: true },
    idempotent: true,
    handler: send,
  });
}
