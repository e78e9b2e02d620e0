/**
 * Platform events (what webhooks deliver): their types and `emit`, the one function an
 * area calls when something happened. emit records the event in D1 before it returns (one
 * statement, and none at all when the subject's owner has no enabled endpoint), then hands
 * it to the sink the Worker registered (src/webhooks: fan-out and delivery) without
 * awaiting it. This module is all an emitting area imports: delivery lives above it.
 */
import { now } from './clock';

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
  /** The account whose endpoints may receive it: the subject's owner. */
  ownerId: number;
  /** The subject, for the read check at delivery: a resource or a group. */
  resourceId?: number | null;
  groupId?: number | null;
  /** Thin: ids, names, status, the item's url; never content or outputs. */
  data: Record<string, unknown>;
}

/** A recorded event, as the sink receives it. */
export interface RecordedEvent extends PlatformEvent {
  id: number;
  /** The JSON body every endpoint receives: {type, timestamp, data}. */
  body: string;
  createdOn: string;
}

export type EventSink = (env: Env, event: RecordedEvent) => Promise<void>;

let sink: EventSink | null = null;

/** Registers what happens to recorded events (src/index.ts: the webhooks fan-out). */
export function onEvents(next: EventSink | null): void {
  sink = next;
}

/** Anything that keeps a promise running after the caller returns: ExecutionContext or DurableObjectState. */
export interface Background {
  waitUntil(promise: Promise<unknown>): void;
}

/**
 * Records the event (when its owner has an enabled endpoint) and starts its delivery in
 * the background. Never throws: an event that cannot be recorded is logged, not the
 * caller's failure.
 */
export async function emit(env: Env, bg: Background, event: PlatformEvent, at: number = now()): Promise<void> {
  try {
    const createdOn = new Date(at).toISOString();
    const body = JSON.stringify({ type: event.type, timestamp: createdOn, data: event.data });
    const row = await env.DB.prepare(
      `INSERT INTO webhook_events (owner_id, type, resource_id, group_id, body, created_on)
       SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE EXISTS (SELECT 1 FROM webhooks WHERE owner_id = ?1 AND enabled = 1)
       RETURNING id`,
    )
      .bind(event.ownerId, event.type, event.resourceId ?? null, event.groupId ?? null, body, createdOn)
      .first<{ id: number }>();
    if (!row || !sink) return;
    bg.waitUntil(sink(env, { ...event, id: row.id, body, createdOn }).catch((err) => console.error('webhooks', err)));
  } catch (err) {
    console.error('event not recorded', event.type, err);
  }
}
