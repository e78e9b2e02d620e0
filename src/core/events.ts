/**
 * Platform events (what webhooks deliver): their types and `eventWrite` / `batchWithEvent`,
 * which record an event inside the batch of the change it reports (one D1 round trip, one
 * transaction: no change without its event, and the other way), by the recorder the Worker
 * registered (src/webhooks: the event with its deliveries), and leave delivery to the
 * background. Every event is recorded so; only a test ping (src/webhooks), which reports no
 * change, is a batch of its own. This module is all an emitting area imports: recording and
 * delivery live above it.
 */
import type { SQL } from 'drizzle-orm';
import type { BatchItem } from 'drizzle-orm/batch';
import { now } from './clock';
import type { Db } from './context';

export const EVENT_TYPES = [
  'run.succeeded',
  'run.failed',
  'run.canceled',
  'mail.sent',
  'mail.bounced',
  'document.created',
  'document.updated',
  'document.deleted',
  'grid.created',
  'grid.updated',
  'grid.deleted',
  'mail.created',
  'mail.updated',
  'mail.deleted',
  'member.invited',
  'member.joined',
  'member.left',
  'comment.created',
  'ping',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface PlatformEvent {
  type: EventType;
  /**
   * The account whose endpoints may receive it: the subject's owner (when omitted: read
   * from the subject's row in the recording statement, the organisation's for its groups).
   */
  ownerId?: number;
  /** The subject, for the read check when it is recorded: a resource or a group. */
  resourceId?: number | null;
  groupId?: number | null;
  /** Only this endpoint gets it (a test ping). */
  webhookId?: number;
  /**
   * Thin: ids, names, status, the item's url; never content or outputs. A value may be SQL,
   * read when the event is recorded, after the change in its batch: what only the batch
   * knows (the id the change's insert took: `last_insert_rowid()`, a name read from a row).
   */
  data: Record<string, unknown>;
  /**
   * Recorded only when this holds, read after the change in its batch (the change took
   * effect: `changes() = 1` right after its insert, its row exists as written).
   */
  when?: SQL;
}

/**
 * How an event is recorded (registered by the Worker: the webhooks area): the statements
 * that write it with its deliveries (they run in one batch, alone or joined to the batch of
 * the change the event reports), and, from their results, the work left for after the
 * request (waking the endpoints), or null when no endpoint takes the event.
 */
export interface EventRecorder {
  statements(db: Db, event: PlatformEvent, at: number): BatchItem<'sqlite'>[];
  after(env: Env, results: unknown[]): (() => Promise<void>) | null;
}

let recorder: EventRecorder | null = null;

/** Registers how events are recorded (src/index.ts: the webhooks area). */
export function onEvents(next: EventRecorder | null): void {
  recorder = next;
}

/** Anything that keeps a promise running after the caller returns: ExecutionContext or DurableObjectState. */
export interface Background {
  waitUntil(promise: Promise<unknown>): void;
}

/** An event to record inside the batch of the change it reports: no change without its event, and the other way. */
export interface EventWrite {
  /** Join these to the batch, last and in this order. */
  statements: BatchItem<'sqlite'>[];
  /** Hand over their results once the batch ran: delivery starts in the background. */
  recorded(results: unknown[]): void;
}

/**
 * Resolves a task later, after what runs now: the answer the request is about to give goes
 * out before the work left for after it starts (one thread runs both, locally and in an
 * isolate).
 */
const nextTask = () => new Promise<void>((ok) => setTimeout(ok, 0));

export function eventWrite(env: Env, db: Db, bg: Background, event: PlatformEvent): EventWrite {
  const statements = recorder?.statements(db, event, now()) ?? [];
  return {
    statements,
    recorded: (results) => {
      const after = recorder?.after(env, results.slice(-statements.length));
      if (after)
        bg.waitUntil(
          nextTask()
            .then(after)
            .catch((err) => console.error('webhooks', event.type, err)),
        );
    },
  };
}

/**
 * Runs `statements` and the event's (last) in one batch; answers the results of `statements`.
 * A null event: the statements alone.
 */
export async function batchWithEvent(
  env: Env,
  db: Db,
  bg: Background,
  statements: BatchItem<'sqlite'>[],
  event: PlatformEvent | null,
): Promise<unknown[]> {
  const write = event ? eventWrite(env, db, bg, event) : null;
  const [first, ...rest] = [...statements, ...(write?.statements ?? [])];
  if (!first) return [];
  const results = await db.batch([first, ...rest]);
  write?.recorded(results);
  return results.slice(0, statements.length);
}
