/** Resource logs: what happened to a document, grid or mail, as text or JSON entries. */
import { asc, eq } from 'drizzle-orm';
import { resourceLog } from '../db/schema';
import { nowIso } from './clock';
import type { Db } from './context';
import { jsonResponse, textResponse, wantsJson } from './http';

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

export async function readLog(db: Db, resourceId: number): Promise<LogEntry[]> {
  return db
    .select({ log_time: resourceLog.log_time, severity: resourceLog.severity, message: resourceLog.message })
    .from(resourceLog)
    .where(eq(resourceLog.resource_id, resourceId))
    .orderBy(asc(resourceLog.id));
}

/** One line per entry: `<log_time> <SEVERITY> <message>`. An empty log is an empty body. */
export function formatLogText(entries: LogEntry[]): string {
  return entries.map((e) => `${e.log_time} ${e.severity.toUpperCase()} ${e.message}\n`).join('');
}

/** Answers a log in the format the client asked for (Accept: application/json or text). */
export function logResponse(req: Request, entries: LogEntry[]): Response {
  return wantsJson(req) ? jsonResponse(entries, { nvmType: 'file' }) : textResponse(formatLogText(entries));
}
