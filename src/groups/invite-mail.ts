/** The invitation e-mail (kind `invite`): who invites whom into which role, and how to answer. */
import type { OutboundMail } from '../core/mailer';
import type { Role, User } from '../db/schema';
import { escapeHtml } from '../markup/escape';
import type { GroupCtx } from './context';

/** The invitation e-mail (kind `invite`) to the invited user's address; null when they have none. */
export function inviteMail(env: Env, gc: GroupCtx, target: User, role: Role): OutboundMail | null {
  if (!target.email) return null;
  const ref = gc.group.ref;
  const accept = `${env.PUBLIC_ORIGIN}/v1/admin/invites/${ref}/accept`;
  const who = gc.caller!.username;
  const text =
    `${who} invites you to join ${ref} as ${role}.\n\n` +
    `To accept, POST the text "yes" to ${accept} (or "no" to decline).\n` +
    `Your pending invites are listed at ${env.PUBLIC_ORIGIN}/v1/admin/invites.\n`;
  const html =
    `<p>${escapeHtml(who)} invites you to join <b>${escapeHtml(ref)}</b> as ${escapeHtml(role)}.</p>` +
    `<p>To accept, POST the text <code>yes</code> to <code>${escapeHtml(accept)}</code> (or <code>no</code> to decline).</p>`;
  // The inviter's message: it goes with the inviter's account.
  return {
    kind: 'invite',
    to: [target.email],
    subject: `Invitation to join ${ref} as ${role}`,
    text,
    html,
    ownerId: gc.caller!.id,
  };
}
