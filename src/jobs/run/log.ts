/**
 * Reading a run's log: the run's object hands it out page by page (LOG_PAGE entries after
 * a given id) and the answer streams the pages as the client reads them, so a log at its
 * cap (MAX_LOG_ENTRIES, MAX_LOG_BYTES) is never held whole in the Worker's memory.
 */
import { wantsJson } from '../../core/http';
import { formatLogText, type LogEntry } from '../../core/log';

export type LogPage = (LogEntry & { id: number })[];

/** The log as text lines or a JSON array, streamed page by page from `page(after)`. */
export function logStreamResponse(req: Request, page: (after: number) => Promise<LogPage>): Response {
  const json = wantsJson(req);
  const enc = new TextEncoder();
  let after = 0;
  let first = true;
  let started = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started && json) controller.enqueue(enc.encode('['));
      started = true;
      const entries = await page(after);
      if (!entries.length) {
        if (json) controller.enqueue(enc.encode(']'));
        controller.close();
        return;
      }
      after = entries[entries.length - 1]!.id;
      const plain = entries.map(({ log_time, severity, message }) => ({ log_time, severity, message }));
      const text = json
        ? plain.map((e) => (first ? ((first = false), '') : ',') + JSON.stringify(e)).join('')
        : formatLogText(plain);
      controller.enqueue(enc.encode(text));
    },
  });
  const type = json ? 'application/json' : 'text/plain; charset=utf-8';
  return new Response(body, { headers: { 'Content-Type': type, 'X-NVM-Type': 'file' } });
}
