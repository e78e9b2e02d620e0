/** A hard kill of the server a test started, for the end-to-end suites that restart a server on the same state. */
import { execFileSync } from 'node:child_process';

/** SIGKILL every process below this test process (the server it started: node, wrangler, workerd). */
export function killServerHard(): void {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)/.exec(l))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => [Number(m[1]), Number(m[2])] as const);
  const mine = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of rows)
      if (!mine.has(pid) && mine.has(ppid)) {
        mine.add(pid);
        grew = true;
      }
  }
  mine.delete(process.pid);
  for (const pid of mine) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}
