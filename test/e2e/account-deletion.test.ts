// Account deletion survives a hard kill: an account with documents, a job with runs and an e-mail with a test send is
// deleted with a budget of two steps per request and per tick (ACCOUNT_DELETION_STEPS), the whole server is SIGKILLed
// while the ticks remove it, and after a restart on the same state the ticks (GET /__scheduled) finish it: nothing of
// it is readable, its messages are gone, and its name, registered again, inherits nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with the bench
import { root, startPlatform } from '../../scripts/serve.mjs';
import { killServerHard } from './hard-kill';

const VARS = ['--var', 'ACCOUNT_DELETION_STEPS:2', '--var', 'RATE_LIMITING:off'];
const DOCS = 8;
const RUNS = 3;

type Server = { base: string; ops: string; stop: () => Promise<void> };

/** Requests against one server: JSON in, the Response out. */
function client(s: Server) {
  return async (method: string, path: string, o: { token?: string; json?: unknown; text?: string } = {}) => {
    const headers: Record<string, string> = {};
    if (o.token) headers.Authorization = `Bearer ${o.token}`;
    let body: string | undefined;
    if (o.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(o.json);
    }
    if (o.text !== undefined) {
      headers['Content-Type'] = 'text/plain';
      body = o.text;
    }
    return fetch(`${s.base}${path}`, { method, headers, body });
  };
}

async function signUp(s: Server, username: string, fields: Record<string, unknown> = {}): Promise<string> {
  const call = client(s);
  const put = await call('PUT', `/v1/ops/users/${username}`, { token: s.ops, json: { password: 'pw', ...fields } });
  expect(put.status, await put.clone().text()).toBe(201);
  const res = await call('POST', '/v1/token', { json: { username, password: 'pw' } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

const tick = (s: Server) => fetch(`${s.base}/__scheduled?cron=*+*+*+*+*`);
const pending = async (s: Server) =>
  (
    (await (await fetch(`${s.base}/v1/ops/deletions`, { headers: { Authorization: `Bearer ${s.ops}` } })).json()) as {
      username: string;
    }[]
  ).map((d) => d.username);

describe('account deletion across a hard kill', () => {
  it('SIGKILL while the ticks remove an account: after a restart they finish it, and nothing of it is left', async () => {
    const dir = mkdtempSync(join(root, '.wrangler', 'kill-'));
    const email = `leaver-${Date.now().toString(36)}@example.com`;
    try {
      const first: Server = await startPlatform({ persistTo: dir, keepState: true, extraArgs: VARS });
      const call = client(first);
      const token = await signUp(first, 'leaver', { email, email_verified: true, profile_public: true });
      const stayer = await signUp(first, 'stayer');
      const ok = async (res: Promise<Response>, status: number) => {
        const r = await res;
        expect(r.status, await r.clone().text()).toBe(status);
      };
      for (let i = 0; i < DOCS; i++) {
        await ok(call('PUT', `/v1/vis/docs/d${i}`, { token }), 201);
        await ok(call('POST', `/v1/vis/docs/d${i}/content`, { token, text: `# doc ${i}` }), 204);
        await ok(call('PUT', `/v1/vis/docs/d${i}/tags/fav`, { token }), 201);
        await ok(call('PUT', `/v1/vis/docs/d${i}/shared/public`, { token }), 201);
      }
      await ok(call('PUT', '/v1/code/jobs/j', { token }), 201);
      const code = `export default { async run() { return 'ok' } }`;
      const put = await fetch(`${first.base}/v1/code/jobs/j/code/index.js`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/javascript' },
        body: code,
      });
      expect(put.status).toBe(204);
      for (let i = 0; i < RUNS; i++)
        expect((await call('POST', '/v1/code/jobs/j/data', { token, json: {} })).status).toBeLessThan(300);
      await ok(call('PUT', '/v1/vis/mails/m', { token }), 201);
      await ok(call('POST', '/v1/vis/mails/m/subject', { token, text: 'Hello' }), 204);
      await ok(call('POST', '/v1/vis/mails/m/content', { token, text: 'hi' }), 204);
      await ok(call('POST', '/v1/vis/mails/m/status', { token, text: 'test' }), 202);
      for (let i = 0; i < 300; i++) {
        if ((await (await call('GET', '/v1/vis/mails/m/status', { token })).text()) === 'ready') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      const outbox = async (s: Server) =>
        ((await (await client(s)('GET', '/v1/ops/outbox', { token: s.ops })).json()) as { to: string[] }[]).filter(
          (m) => m.to.includes(email),
        );
      expect(await outbox(first)).toHaveLength(1);
      // Before: stayer reads its public document.
      expect((await call('GET', '/v1/users/leaver/vis/docs/d0/content', { token: stayer })).status).toBe(200);

      // Deleted: two steps in the request (202), then the ticks; the kill lands while one is running.
      await ok(call('DELETE', '/v1/admin/account', { token, json: { password: 'pw' } }), 202);
      expect(await pending(first)).toEqual(['leaver']);
      expect((await tick(first)).status).toBe(200);
      void tick(first).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 30));
      killServerHard();

      const second: Server = await startPlatform({ persistTo: dir, keepState: true, extraArgs: VARS });
      try {
        const again = client(second);
        expect(await pending(second)).toEqual(['leaver']); // the kill left it unfinished
        let ticks = 0;
        for (; ticks < 100 && (await pending(second)).length; ticks++) expect((await tick(second)).status).toBe(200);
        expect(await pending(second)).toEqual([]);
        console.log(`after the restart ${ticks} tick(s) finished the deletion`);
        expect(ticks).toBeGreaterThan(1);

        // Nothing of it is readable, its message is gone, no run or send is left in the tables.
        for (const path of [
          '/v1/users/leaver/vis/docs/d0/content',
          `/v1/users/leaver/vis/docs/d${DOCS - 1}`,
          '/v1/users/leaver/code/jobs/j',
          '/v1/users/leaver/vis/mails/m',
          '/v1/users/leaver/vis/docs',
        ])
          expect((await again('GET', path, { token: stayer })).status, path).toBe(404);
        expect(await outbox(second)).toEqual([]);
        const counts = (await (await again('GET', '/v1/ops/retention', { token: second.ops })).json()) as {
          rows: Record<string, number>;
        };
        expect(counts.rows).toMatchObject({ outbox: 0, job_runs: 0, mail_runs: 0, resource_log: 0 });

        // Its name can be taken again, and the new account inherits nothing.
        const fresh = await signUp(second, 'leaver');
        for (const list of ['/v1/vis/docs', '/v1/code/jobs', '/v1/vis/mails', '/v1/vis/grids'])
          expect(await (await again('GET', list, { token: fresh })).json(), list).toEqual([]);
        expect((await again('GET', '/v1/vis/docs/d0', { token: fresh })).status).toBe(404);
        expect((await again('GET', '/v1/code/jobs/j/runs', { token: fresh })).status).toBe(404);
        expect((await again('GET', '/v1/users/leaver/vis/docs/d0/content', { token: stayer })).status).toBe(404);
        expect(((await (await again('GET', '/v1/tokens', { token: fresh })).json()) as unknown[]).length).toBe(1);
      } finally {
        await second.stop();
      }
    } finally {
      killServerHard();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 240_000);
});
