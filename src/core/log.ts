/**
 * Resource logs: what happened to a document, grid or mail, as text or JSON entries. Readers page from the newest
 * line back (?limit, ?before): a log is never loaded whole.
 */
import { and, desc, eq, lt } from 'drizzle-orm';
import { resourceLog } from '../db/schema';
import { nowIso } from './clock';
import type { Db } from './context';
import { badRequest } from './errors';
import { jsonResponse, textResponse, wantsJson } from './http';
import { once } from './once';

export type Severity = 'debug' | 'info' | 'warning' | 'error';

export interface LogEntry {
  log_time: string;
  severity: string;
  message: string;
}

/** The insert behind appendLog, for callers that batch it with other writes (db.batch). */
export function logInsert(db: Db, resourceId: number, message: string, severity: Severity = 'info') {
  return db.insert(resourceLog).values({ resource_id: resourceId, log_time: nowIso(), severity, message });
}

export async function appendLog(
  db: Db,
  resourceId: number,
  message: string,
  severity: Severity = 'info',
): Promise<void> {
  await logInsert(db, resourceId, message, severity);
}

/** Lines a log page holds at most, and without ?limit. */
export const LOG_PAGE_MAX = 1000;

/** A page of a log: its lines oldest first; `before`: the cursor of the next older page, null at the start. */
export interface LogPage {
  entries: LogEntry[];
  before: string | null;
}

/** ?limit (1 to LOG_PAGE_MAX, default LOG_PAGE_MAX) and ?before (a cursor an earlier page answered); 400 otherwise. */
export function logPageQuery(url: URL): { limit: number; before: number | null } {
  const rawLimit = url.searchParams.get('limit');
  // `cursor` is the name every listing's pages use (the Link header's); `before` the log's own.
  const rawBefore = url.searchParams.get('before') ?? url.searchParams.get('cursor');
  const limit = rawLimit === null ? LOG_PAGE_MAX : Number(rawLimit);
  if (rawLimit !== null && (!/^\d+$/.test(rawLimit) || limit < 1 || limit > LOG_PAGE_MAX))
    throw badRequest(`limit must be a whole number from 1 to ${LOG_PAGE_MAX}`);
  if (rawBefore !== null && !/^[1-9]\d{0,15}$/.test(rawBefore))
    throw badRequest('before (or cursor) must be the X-Log-Before value of an earlier page');
  return { limit, before: rawBefore === null ? null : Number(rawBefore) };
}

/** The newest `limit` lines older than `before` (the whole log's newest without it), oldest first. */
export async function readLog(
  db: Db,
  resourceId: number,
  page: { limit: number; before: number | null } = { limit: LOG_PAGE_MAX, before: null },
): Promise<LogPage> {
  const rows = await db
    .select({
      id: resourceLog.id,
      log_time: resourceLog.log_time,
      severity: resourceLog.severity,
      message: resourceLog.message,
    })
    .from(resourceLog)
    .where(
      and(eq(resourceLog.resource_id, resourceId), page.before === null ? undefined : lt(resourceLog.id, page.before)),
    )
    .orderBy(desc(resourceLog.id))
    .limit(page.limit + 1);
  const more = rows.length > page.limit;
  const kept = rows.slice(0, page.limit).reverse();
  return {
    entries: kept.map(({ id: _id, ...e }) => e),
    before: more && kept.length ? String(kept[0]!.id) : null,
  };
}

/** One line per entry: `<log_time> <SEVERITY> <message>`. An empty log is an empty body. */
export function formatLogText(entries: LogEntry[]): string {
  return entries.map((e) => `${e.log_time} ${e.severity.toUpperCase()} ${e.message}\n`).join('');
}

/** What a resource's log reads like: the OpenAPI document's example of one. */
export const logTextExample = once(() =>
  formatLogText([
    { log_time: '2025-10-02T09:30:00.118Z', severity: 'info', message: 'content written (2311 bytes)' },
    { log_time: '2025-10-02T09:31:12.540Z', severity: 'info', message: 'config/theme written (7 bytes)' },
  ]),
);

/**
 * Answers a log in the format the client asked for (Accept: application/json or text); a page with older lines
 * behind it names their cursor in X-Log-Before (pass it as ?before).
 */
export function logResponse(req: Request, entries: LogEntry[], before: string | null = null): Response {
  const res = wantsJson(req) ? jsonResponse(entries, { nvmType: 'file' }) : textResponse(formatLogText(entries));
  if (before !== null) {
    res.headers.set('X-Log-Before', before);
    // The older lines, as every listing names its next page.
    const older = new URL(req.url);
    older.searchParams.delete('before');
    older.searchParams.set('cursor', before);
    res.headers.set('Link', `<${older.href}>; rel="next"`);
  }
  return res;
}
