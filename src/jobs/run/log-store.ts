/**
 * A run's log where its RunObject keeps it (the object's SQLite storage), within its caps
 * (src/jobs/caps.ts: an entry that reaches one is replaced by LOG_TRUNCATED), and the live
 * tails that follow it: SSE streams that get the backlog page by page, then each new entry,
 * then `end` with the final status. durable/run.ts holds one and answers its RPC methods.
 */
import { nowIso } from '../../core/clock';
import type { LogEntry, Severity } from '../../core/log';
import { LOG_PAGE, LOG_TRUNCATED, logFull, oneLine } from '../caps';
import type { RunStatus } from '../schema';
import type { LogPage } from './log';
import { isFinal } from './machine';

type Tail = WritableStreamDefaultWriter<Uint8Array>;

const sse = (event: string, data: unknown) =>
  new TextEncoder().encode(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

export class RunLogStore {
  private readonly tails = new Set<Tail>();
  /** Entries and message bytes stored (the caps count both). */
  private count: number;
  private bytes: number;
  /** Tails still reading their backlog. */
  private catchingUp = 0;
  /** The run was forgotten: its table is gone with the object's storage. */
  private gone = false;

  constructor(private readonly sql: SqlStorage) {
    sql.exec(
      'CREATE TABLE IF NOT EXISTS log (id INTEGER PRIMARY KEY AUTOINCREMENT, log_time TEXT NOT NULL, severity TEXT NOT NULL, message TEXT NOT NULL)',
    );
    const stored = sql
      .exec<{ n: number; bytes: number }>(
        'SELECT COUNT(*) AS n, COALESCE(SUM(LENGTH(CAST(message AS BLOB))), 0) AS bytes FROM log',
      )
      .one();
    this.count = stored.n;
    this.bytes = stored.bytes;
  }

  /** Appends an entry (LOG_TRUNCATED instead when it reaches a cap) and sends it to the tails; true when it did. */
  append(text: string, severity: Severity | string): boolean {
    if (this.gone) return false;
    const message = oneLine(text);
    const bytes = new TextEncoder().encode(message).byteLength;
    const full = logFull(this.count, this.bytes, bytes);
    const entry: LogEntry = full
      ? { log_time: nowIso(), severity: 'warning', message: LOG_TRUNCATED }
      : { log_time: nowIso(), severity, message };
    this.sql.exec(
      'INSERT INTO log (log_time, severity, message) VALUES (?, ?, ?)',
      entry.log_time,
      entry.severity,
      entry.message,
    );
    this.count++;
    this.bytes += bytes;
    this.broadcast('log', entry);
    return full;
  }

  /** One page: the entries after entry `after` (an id; 0 from the start), at most LOG_PAGE, each with its id. */
  page(after = 0, limit = LOG_PAGE): LogPage {
    if (this.gone) return [];
    return this.sql
      .exec<{ id: number; log_time: string; severity: string; message: string }>(
        'SELECT id, log_time, severity, message FROM log WHERE id > ? ORDER BY id LIMIT ?',
        after,
        Math.max(1, Math.min(limit, LOG_PAGE)),
      )
      .toArray();
  }

  /** A live tail; `status` reads the run's status when the backlog is read, `settled` runs once it is. */
  follow(status: () => RunStatus | null, settled: () => void): ReadableStream<Uint8Array> {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    void this.catchUp(writable.getWriter(), status, settled).catch(() => undefined);
    return readable;
  }

  /** Whether a tail is reading or following (the object stays in memory for it). */
  followed(): boolean {
    return this.tails.size > 0 || this.catchingUp > 0;
  }

  /** Ends every tail: `end` with the final status (none when the run is forgotten). */
  end(status?: RunStatus | null): void {
    if (status !== undefined) this.broadcast('end', { status });
    for (const w of this.tails) void w.close().catch(() => undefined);
    this.tails.clear();
  }

  /** The run is forgotten (its storage is being deleted): tails end, reads find nothing, appends keep nothing. */
  forget(): void {
    this.gone = true;
    this.end();
  }

  private broadcast(event: string, data: unknown): void {
    const chunk = sse(event, data);
    for (const w of this.tails) w.write(chunk).catch(() => this.tails.delete(w));
  }

  /**
   * A tail's backlog, page by page as the reader takes it (never the whole log in memory);
   * then, once caught up (no await between the last read and joining), the live entries.
   */
  private async catchUp(writer: Tail, status: () => RunStatus | null, settled: () => void): Promise<void> {
    this.catchingUp++;
    try {
      let after = 0;
      for (;;) {
        const page = this.page(after);
        if (!page.length) break;
        for (const { id: _id, ...e } of page) await writer.write(sse('log', e));
        after = page[page.length - 1]!.id;
      }
      const now = status();
      if (!isFinal(now)) return void this.tails.add(writer);
      await writer.write(sse('end', { status: now }));
      await writer.close();
    } finally {
      this.catchingUp--;
      settled();
    }
  }
}
