/** One outbound message as the areas hand it to the mailer and the MIME builder reads it. */
type MailKind = 'mail' | 'test' | 'invite' | 'reply' | 'notice';

export interface Attachment {
  filename: string;
  content_type: string;
  content: Uint8Array;
}

export interface OutboundMail {
  kind: MailKind;
  from?: string;
  to: string[];
  subject: string;
  text: string;
  html: string;
  attachments?: Attachment[];
  headers?: Record<string, string>;
  /**
   * Stable Message-ID (`<...@...>`) of this message: the outbox holds it at most once, so
   * handing the same message off again (a send resumed after a hard kill) is a no-op, and
   * the send_email transport gets it as the Message-ID header to drop repeats too.
   */
  messageId?: string;
  /** The account whose message it is (its outbox row is deleted with the account); none for a platform message. */
  ownerId?: number | null;
  /** The e-mail resource this message was sent for (bounce and complaint reports find their send through it). */
  resourceId?: number;
}
