// A hard kill (SIGKILL of the whole server) during a burst of 200 events (document
// creations) with a webhook endpoint subscribed: after a restart on the same state, every
// event whose request was answered reaches the receiver, and deduplicated on webhook-id each
// event arrives exactly once (one webhook-id per event, every copy of it verified).
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createUser, requester, until } from '../client';
import { killServerHard } from './hard-kill';
import { Receiver, verify } from './webhooks-receiver';
// @ts-expect-error plain ESM helper shared with the bench
import { root, startPlatform } from '../../scripts/serve.mjs';

const N = 200;
const PARALLEL = 8;
/** The kill lands once this many creations were answered: deliveries are still under way. */
const KILL_AFTER = 150;

describe('webhooks: hard kill', () => {
  it('SIGKILL during a burst of 200 events: after restart each answered event is received, once per webhook-id', async () => {
    const dir = mkdtempSync(join(root, '.wrangler', 'kill-'));
    const receiver = new Receiver();
    await receiver.start();
    const json = { 'Content-Type': 'application/json' };
    try {
      const first = await startPlatform({ persistTo: dir, keepState: true });
      const { token } = await createUser(
        requester(fetch, () => first.base),
        first.ops,
        {},
        'hk',
      );
      const auth = { Authorization: `Bearer ${token}` };
      const created = await fetch(`${first.base}/v1/admin/webhooks/burst`, {
        method: 'PUT',
        headers: { ...auth, ...json },
        body: JSON.stringify({ url: receiver.url('/burst'), events: ['document.created'] }),
      });
      expect(created.status).toBe(201);
      const { secret } = (await created.json()) as { secret: string };

      const answered: string[] = [];
      let killed = false;
      const names = Array.from({ length: N }, (_, i) => `k${i}`);
      let next = 0;
      const worker = async () => {
        while (next < names.length && !killed) {
          const name = names[next++]!;
          try {
            const res = await fetch(`${first.base}/v1/vis/docs/${name}`, { method: 'PUT', headers: auth });
            if (res.status === 201) answered.push(name);
          } catch {
            // cut off by the kill: this event may or may not exist
          }
          if (answered.length >= KILL_AFTER && !killed) {
            killed = true;
            killServerHard();
          }
        }
      };
      await Promise.all(Array.from({ length: PARALLEL }, worker));
      const beforeRestart = receiver.at('/burst').length;

      const second = await startPlatform({ persistTo: dir, keepState: true });
      try {
        // The tick wakes endpoints with deliveries due (a wake the kill cut off).
        await until(
          'every answered event',
          async () => {
            await fetch(`${second.base}/__scheduled?cron=${encodeURIComponent('* * * * *')}`);
            const got = new Set(receiver.at('/burst').map((r) => r.event.data.name as string));
            return answered.every((n) => got.has(n));
          },
          90_000,
        );
        const received = receiver.at('/burst');
        const idsPerName = new Map<string, Set<string>>();
        for (const r of received) {
          verify(secret, r);
          const name = r.event.data.name as string;
          idsPerName.set(name, (idsPerName.get(name) ?? new Set()).add(r.id));
        }
        // After deduplication on webhook-id: each event once (no event under two ids).
        expect([...idsPerName.entries()].filter(([, ids]) => ids.size !== 1)).toEqual([]);
        const unique = new Set(received.map((r) => r.id));
        expect(unique.size).toBe(idsPerName.size);
        console.log(
          `killed after ${answered.length} answered; ${beforeRestart} deliveries before the restart, ${received.length} in all, ${unique.size} distinct events`,
        );
      } finally {
        await second.stop();
      }
    } finally {
      killServerHard();
      await receiver.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
