// A hard kill (SIGKILL of the whole server: wrangler, workerd) during a 400-recipient send:
// after a restart on the same state, the send resumes and every recipient has exactly one
// message in the outbox; the stats row agrees.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with the bench
import { root, startPlatform } from '../../scripts/serve.mjs';

/** SIGKILL every process below this test process (the server it started: node, wrangler, workerd). */
function killServerHard(): void {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)/.exec(l))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => [Number(m[1]), Number(m[2])] as const);
  const mine = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [pid, ppid] of rows) if (!mine.has(pid) && mine.has(ppid)) (mine.add(pid), (grew = true));
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

const N = 400;
const KILL_AFTER_MS = 40;

describe('hard kill', () => {
  it('SIGKILL during a 400-recipient send: after restart every recipient has exactly one message', async () => {
    const dir = mkdtempSync(join(root, '.wrangler', 'kill-'));
    const json = { 'Content-Type': 'application/json' };
    const addresses = Array.from({ length: N }, (_, i) => `k${i}-${Date.now().toString(36)}@example.com`);
    try {
      const first = await startPlatform({ persistTo: dir, keepState: true });
      const ops = { Authorization: `Bearer ${first.ops}` };
      await fetch(`${first.base}/v1/ops/users/killer`, { method: 'PUT', headers: { ...json, ...ops }, body: JSON.stringify({ password: 'pw', plan: 'premium', email: 'killer@example.com', email_verified: true }) });
      const { token } = (await (await fetch(`${first.base}/v1/token`, { method: 'POST', headers: json, body: JSON.stringify({ username: 'killer', password: 'pw' }) })).json()) as { token: string };
      const auth = { Authorization: `Bearer ${token}` };
      const mail = `${first.base}/v1/vis/mails/big`;
      expect((await fetch(mail, { method: 'PUT', headers: auth })).status).toBe(201);
      expect((await fetch(`${mail}/subject`, { method: 'POST', headers: { ...auth, 'Content-Type': 'text/plain' }, body: 'Big' })).status).toBe(204);
      expect((await fetch(`${mail}/recipients/to`, { method: 'POST', headers: { ...auth, 'Content-Type': 'text/plain' }, body: addresses.join(' ') })).status).toBe(204);
      expect((await fetch(`${mail}/status`, { method: 'POST', headers: { ...auth, 'Content-Type': 'text/plain' }, body: 'sent' })).status).toBe(202);
      const outboxCount = async (base: string, opsToken: string) =>
        ((await (await fetch(`${base}/v1/ops/outbox`, { headers: { Authorization: `Bearer ${opsToken}` } })).json()) as { to: string[] }[]).filter((m) => addresses.includes(m.to[0]!));
      // Kill while the alarm delivers (local delivery of 400 takes well under a second).
      await new Promise((r) => setTimeout(r, KILL_AFTER_MS));
      killServerHard();

      const second = await startPlatform({ persistTo: dir, keepState: true });
      try {
        let status = '';
        for (let i = 0; i < 600 && status !== 'ready'; i++) {
          status = await (await fetch(`${second.base}/v1/vis/mails/big/status`, { headers: auth })).text();
          if (status !== 'ready') await new Promise((r) => setTimeout(r, 100));
        }
        expect(status).toBe('ready');
        const got = await outboxCount(second.base, second.ops);
        const per = new Map<string, number>();
        for (const m of got) per.set(m.to[0]!, (per.get(m.to[0]!) ?? 0) + 1);
        expect([...per.values()].filter((n) => n !== 1)).toEqual([]);
        expect(per.size).toBe(N);
        const runs = (await (await fetch(`${second.base}/v1/vis/mails/big/stats/runs`, { headers: { ...auth, Accept: 'application/json' } })).json()) as { delivered: number; status: string }[];
        expect(runs.at(-1)).toMatchObject({ status: 'delivered', delivered: N });
        const log = await (await fetch(`${second.base}/v1/vis/mails/big/log`, { headers: auth })).text();
        console.log(`kill after ${KILL_AFTER_MS} ms: ${log.includes('resumed after an interruption') ? 'the send was resumed' : 'the kill landed outside delivery'}; ${runs.length} stats row(s)`);
      } finally {
        await second.stop();
      }
    } finally {
      killServerHard();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
