// A hard kill (SIGKILL of the whole server: wrangler, workerd) during a 400-recipient send:
// after a restart on the same state, the send resumes and every recipient has exactly one
// message in the outbox; the stats row agrees. During a run: after a restart the cut-off run
// ends failed with the interruption logged (its watchdog alarm fires), nothing else changed.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { killServerHard } from './hard-kill';
import { userOn } from './harness';
// @ts-expect-error plain ESM helper shared with the bench
import { root, startPlatform } from '../../scripts/serve.mjs';

const N = 400;
const KILL_AFTER_MS = 40;

describe('hard kill', () => {
  it('SIGKILL during a 400-recipient send: after restart every recipient has exactly one message', async () => {
    const dir = mkdtempSync(join(root, '.wrangler', 'kill-'));
    const addresses = Array.from({ length: N }, (_, i) => `k${i}-${Date.now().toString(36)}@example.com`);
    try {
      const first = await startPlatform({ persistTo: dir, keepState: true });
      const { token } = await userOn(
        first,
        { plan: 'premium', email: 'killer@example.com', email_verified: true },
        'killer',
      );
      const auth = { Authorization: `Bearer ${token}` };
      const mail = `${first.base}/v1/vis/mails/big`;
      expect((await fetch(mail, { method: 'PUT', headers: auth })).status).toBe(201);
      expect(
        (
          await fetch(`${mail}/subject`, {
            method: 'POST',
            headers: { ...auth, 'Content-Type': 'text/plain' },
            body: 'Big',
          })
        ).status,
      ).toBe(204);
      expect(
        (
          await fetch(`${mail}/recipients/to`, {
            method: 'POST',
            headers: { ...auth, 'Content-Type': 'text/plain' },
            body: addresses.join(' '),
          })
        ).status,
      ).toBe(204);
      expect(
        (
          await fetch(`${mail}/status`, {
            method: 'POST',
            headers: { ...auth, 'Content-Type': 'text/plain' },
            body: 'sent',
          })
        ).status,
      ).toBe(202);
      const outboxCount = async (base: string, opsToken: string) =>
        (
          (await (
            await fetch(`${base}/v1/ops/outbox`, { headers: { Authorization: `Bearer ${opsToken}` } })
          ).json()) as { to: string[] }[]
        ).filter((m) => addresses.includes(m.to[0]!));
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
        const runs = (await (
          await fetch(`${second.base}/v1/vis/mails/big/stats/runs`, {
            headers: { ...auth, Accept: 'application/json' },
          })
        ).json()) as {
          delivered: number;
          status: string;
        }[];
        expect(runs.at(-1)).toMatchObject({ status: 'delivered', delivered: N });
        const log = await (await fetch(`${second.base}/v1/vis/mails/big/log`, { headers: auth })).text();
        console.log(
          `kill after ${KILL_AFTER_MS} ms: ${log.includes('resumed after an interruption') ? 'the send was resumed' : 'the kill landed outside delivery'}; ${runs.length} stats row(s)`,
        );
      } finally {
        await second.stop();
      }
    } finally {
      killServerHard();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
  it('SIGKILL during a run: after restart the run ends failed with the interruption logged, nothing else changed', async () => {
    const dir = mkdtempSync(join(root, '.wrangler', 'kill-'));
    const json = { 'Content-Type': 'application/json' };
    const code =
      'export default { async run(input, ctx) { ctx.log("waiting"); await new Promise((r) => setTimeout(r, 20000)); return { late: true }; } };';
    try {
      const first = await startPlatform({ persistTo: dir, keepState: true });
      const { token } = await userOn(first, {}, 'runkiller');
      const auth = { Authorization: `Bearer ${token}` };
      const job = (base: string) => `${base}/v1/code/jobs/slow`;
      expect((await fetch(job(first.base), { method: 'PUT', headers: auth })).status).toBe(201);
      expect(
        (
          await fetch(`${job(first.base)}/code/index.js`, {
            method: 'POST',
            headers: { ...auth, 'Content-Type': 'text/javascript' },
            body: code,
          })
        ).status,
      ).toBe(204);
      const runNames = async (base: string) =>
        (
          (await (await fetch(`${job(base)}/runs`, { headers: { ...auth, Accept: 'application/json' } })).json()) as {
            name: string;
          }[]
        ).map((r) => r.name);
      // The trigger answers when the run ends: it never does here (the kill breaks it off).
      void fetch(`${job(first.base)}/data`, { method: 'POST', headers: { ...auth, ...json }, body: '{}' }).catch(
        () => undefined,
      );
      let names: string[] = [];
      for (let i = 0; i < 100 && !names.length; i++) {
        names = await runNames(first.base);
        if (!names.length) await new Promise((r) => setTimeout(r, 100));
      }
      expect(names).toHaveLength(1);
      const run = names[0]!;
      await new Promise((r) => setTimeout(r, 1000)); // the code is waiting now
      expect(await (await fetch(`${job(first.base)}/runs/${run}/status`, { headers: auth })).text()).toBe('processing');
      killServerHard();

      const second = await startPlatform({ persistTo: dir, keepState: true });
      try {
        // Nothing touches the run: its watchdog alarm, kept across the restart, finishes it.
        const t0 = Date.now();
        let status = '';
        while (Date.now() - t0 < 60_000 && status !== 'failed') {
          status = await (await fetch(`${job(second.base)}/runs/${run}/status`, { headers: auth })).text();
          if (status !== 'failed') await new Promise((r) => setTimeout(r, 500));
        }
        expect(status).toBe('failed');
        console.log(`the cut-off run ended failed ${((Date.now() - t0) / 1000).toFixed(1)} s after the restart`);
        expect(await (await fetch(`${job(second.base)}/runs/${run}/log`, { headers: auth })).text()).toContain(
          'the run was interrupted',
        );
        expect(await runNames(second.base)).toEqual([run]);
        expect(await (await fetch(`${job(second.base)}/code/index.js`, { headers: auth })).text()).toBe(code);
        expect(await (await fetch(`${job(second.base)}/config/enabled`, { headers: auth })).text()).toBe('true');
      } finally {
        await second.stop();
      }
    } finally {
      killServerHard();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
