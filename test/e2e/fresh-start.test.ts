import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error plain ESM helper shared with the bench
import { root, startPlatform } from '../../scripts/serve.mjs';
import { userOn } from './harness';

// A fresh checkout: the repo's files without .dev.vars or any local state (node_modules is linked).
function freshCheckout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fresh-checkout-'));
  const files = [
    'package.json',
    'wrangler.toml',
    'tsconfig.json',
    'worker-configuration.d.ts',
    'src',
    'durable',
    'isolates',
  ];
  for (const f of [...files, 'migrations', 'scripts']) {
    cpSync(join(root, f), join(dir, f), { recursive: true });
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

describe('npm start on a fresh checkout', () => {
  it('creates .dev.vars with a random OPS_TOKEN, says where it is, and that token runs the operator interface', async () => {
    const dir = freshCheckout();
    try {
      expect(existsSync(join(dir, '.dev.vars'))).toBe(false);
      const server = await startPlatform({ dir });
      try {
        const vars = readFileSync(join(dir, '.dev.vars'), 'utf8');
        const token = /^OPS_TOKEN=([0-9a-f]{48})$/m.exec(vars)?.[1];
        expect(token).toBeDefined();
        expect(statSync(join(dir, '.dev.vars')).mode & 0o077).toBe(0); // readable by its owner only
        expect(server.log.join('')).toContain(`Created ${join(dir, '.dev.vars')} with a random OPS_TOKEN`);
        // one line per migration applied, not wrangler's table once per migration
        const log = server.log.join('');
        const migrations = readdirSync(join(dir, 'migrations')).filter((f) => f.endsWith('.sql'));
        for (const m of migrations) expect(log.split(`D1 migration applied: ${m}\n`).length, m).toBe(2);
        expect(log).not.toMatch(/│.*\.sql/);
        // no "types might be out of date": the committed types leave the local-only keys out on purpose
        expect(log).not.toMatch(/types might be out of date/i);
        expect(log).toMatch(/Ready on http:\/\/127\.0\.0\.1:\d+/);
        // Not the token of this checkout: each fresh checkout gets its own.
        const mine = /^OPS_TOKEN=(.*)$/m.exec(readFileSync(join(root, '.dev.vars'), 'utf8'))?.[1];
        expect(token).not.toBe(mine);
        const created = await fetch(`${server.base}/v1/ops/users/freshstart`, {
          method: 'PUT',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ password: 'pw-fresh' }),
        });
        expect(created.status).toBe(201);
        // Migrations were applied: the new user can sign in.
        const tok = await fetch(`${server.base}/v1/token`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ username: 'freshstart', password: 'pw-fresh' }),
        });
        expect(tok.status).toBe(200);
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm start keeps the isolates current', () => {
  it('an edit to a file an isolate is built from reaches the running server, as an edit to src/ does', async () => {
    const dir = freshCheckout();
    try {
      const server = await startPlatform({ dir });
      try {
        const { token } = await userOn(server, {}, 'watch');
        const auth = { Authorization: `Bearer ${token}` };
        expect((await fetch(`${server.base}/v1/code/jobs/w`, { method: 'PUT', headers: auth })).status).toBe(201);
        // The syntax check runs in the libraries isolate (isolates/libraries.ts → src/jobs/code-syntax.ts).
        const message = async () =>
          (
            (await (
              await fetch(`${server.base}/v1/code/jobs/w/code/index.js`, {
                method: 'POST',
                headers: auth,
                body: 'export default { run() { return 1 +; } }',
              })
            ).json()) as { message: string }
          ).message;
        expect(await message()).toBe('code/index.js: line 1, column 36: Unexpected token');
        const file = join(dir, 'src', 'jobs', 'code-syntax.ts');
        writeFileSync(
          file,
          readFileSync(file, 'utf8').replace(
            'return { message: err.message',
            "return { message: 'edited: ' + err.message",
          ),
        );
        let seen = '';
        for (let i = 0; i < 60 && !seen.includes('edited'); i++) {
          await new Promise((r) => setTimeout(r, 500));
          seen = await message().catch(() => '');
        }
        expect(seen).toBe('code/index.js: line 1, column 36: edited: Unexpected token');
      } finally {
        await server.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
