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
  /**
   * The account whose endpoints may receive it: the subject's owner (when omitted: read
   * from the subject's row in the recording statement, the organisation's for its groups).
   */
  ownerId?: number;
  /** The subject, for the read check at delivery: a resource or a group. */
  resourceId?: number | null;
  groupId?: number | null;
  /** Thin: ids, names, status, the item's url; never content or outputs. */
  data: Record<string, unknown>;
}

/** A recorded event, as the sink receives it. */
export interface RecordedEvent extends PlatformEvent {
  id: number;
  ownerId: number;
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
       SELECT o.owner, ?2, ?3, ?4, ?5, ?6 FROM (SELECT coalesce(?1,
         (SELECT owner_id FROM resources WHERE id = ?3),
         (SELECT coalesce(g.owner_id, p.owner_id) FROM groups g LEFT JOIN groups p ON p.id = g.parent_id WHERE g.id = ?4)
       ) AS owner) o
       WHERE EXISTS (SELECT 1 FROM webhooks WHERE owner_id = o.owner AND enabled = 1)
       RETURNING id, owner_id`,
    )
      .bind(event.ownerId ?? null, event.type, event.resourceId ?? null, event.groupId ?? null, body, createdOn)
      .first<{ id: number; owner_id: number }>();
    if (!row || !sink) return;
    const recorded = { ...event, id: row.id, ownerId: row.owner_id, body, createdOn };
    bg.waitUntil(sink(env, recorded).catch((err) => console.error('webhooks', err)));
  } catch (err) {
    console.error('event not recorded', event.type, err);
  }
}

/**
 * emit, for callers without a request to outlive (a Durable Object's alarm, the scheduled
 * tick): answers once the event is also handed to its endpoints.
 */
export async function emitNow(env: Env, event: PlatformEvent): Promise<void> {
  const pending: Promise<unknown>[] = [];
  await emit(env, { waitUntil: (p) => void pending.push(p) }, event);
  await Promise.all(pending);
}
