import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with the bench
import { root, startPlatform } from '../../scripts/serve.mjs';
import { userOn } from './harness';

describe('local state persists across restarts (npm start)', () => {
  it('a user and token created before a restart still work after it', async () => {
    const dir = mkdtempSync(join(root, '.wrangler', 'persist-'));
    try {
      const first = await startPlatform({ persistTo: dir, keepState: true });
      const { username, token } = await userOn(first, {}, 'persisted');
      await first.stop();

      const second = await startPlatform({ persistTo: dir, keepState: true });
      try {
        const who = await fetch(`${second.base}/v1/whoami`, { headers: { Authorization: `Bearer ${token}` } });
        expect(who.status).toBe(200);
        expect(await who.text()).toBe(username);
      } finally {
        await second.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
