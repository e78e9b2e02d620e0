import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with the bench
import { root, startPlatform } from '../../scripts/serve.mjs';

describe('local state persists across restarts (npm start)', () => {
  it('a user and token created before a restart still work after it', async () => {
    const dir = mkdtempSync(join(root, '.wrangler', 'persist-'));
    try {
      const first = await startPlatform({ persistTo: dir, keepState: true });
      const json = { 'Content-Type': 'application/json' };
      await fetch(`${first.base}/v1/ops/users/persisted`, {
        method: 'PUT',
        headers: { ...json, Authorization: `Bearer ${first.ops}` },
        body: JSON.stringify({ password: 'pw' }),
      });
      const { token } = (await (
        await fetch(`${first.base}/v1/token`, {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ username: 'persisted', password: 'pw' }),
        })
      ).json()) as { token: string };
      await first.stop();

      const second = await startPlatform({ persistTo: dir, keepState: true });
      try {
        const who = await fetch(`${second.base}/v1/whoami`, { headers: { Authorization: `Bearer ${token}` } });
        expect(who.status).toBe(200);
        expect(await who.text()).toBe('persisted');
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
