// Starts the platform the way `npm start` does (scripts/start.mjs), on a free port with a
// fresh state folder, and waits until it answers. Used by the e2e tests and the bench.
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { wranglerEnv } from './wrangler-env.mjs';

export const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
    srv.on('error', fail);
  });
}

async function waitFor(url, child, log, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited early:\n${log.join('')}`);
    try {
      const res = await fetch(url);
      if (res.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server did not start in time:\n${log.join('')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Processes a local server leaves behind when it is stopped hard: workerd, and the
 * browsers miniflare's local Browser Rendering launched. Only orphans (re-parented to
 * pid 1) are touched: a running server's processes are still its children.
 */
export function killOrphans() {
  let out = '';
  try {
    out = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' });
  } catch {
    return;
  }
  for (const line of out.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(line);
    const browser = /chrom/i.test(m?.[3] ?? '') && m[3].includes('--user-data-dir=/tmp/miniflare');
    const runtime = m?.[3].includes(`${root}/node_modules/`) && /workerd serve/.test(m[3]);
    if (!m || m[2] !== '1' || !(browser || runtime)) continue;
    try {
      process.kill(Number(m[1]), 'SIGKILL');
    } catch {
      // gone
    }
  }
}

function stopper(child, cleanup) {
  return async () => {
    if (child.pid && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // gone
      }
      // Let wrangler shut down cleanly (it closes the browsers it launched), then insist.
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
    killOrphans();
    cleanup?.();
  };
}

/** The platform server, started by scripts/start.mjs (of the checkout at `dir`: this one by default). */
export async function startPlatform({ extraArgs = [], env = {}, persistTo, keepState = false, dir = root } = {}) {
  const port = await freePort();
  const inspector = await freePort();
  mkdirSync(join(dir, '.wrangler'), { recursive: true });
  const stateDir = persistTo ?? mkdtempSync(join(dir, '.wrangler', 'run-'));
  const log = [];
  const child = spawn(
    process.execPath,
    [join(dir, 'scripts', 'start.mjs'), '--inspector-port', String(inspector), ...extraArgs],
    {
      cwd: dir,
      env: { ...process.env, ...env, PORT: String(port), PERSIST_TO: stateDir },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    },
  );
  child.stdout.on('data', (d) => log.push(String(d)));
  child.stderr.on('data', (d) => log.push(String(d)));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/v1/openapi.json`, child, log, 120_000);
  const ops = /^OPS_TOKEN=(.*)$/m.exec(readFileSync(join(dir, '.dev.vars'), 'utf8'))?.[1]?.trim();
  return {
    base,
    ops,
    stateDir,
    inspector,
    log,
    pid: child.pid,
    stop: stopper(child, keepState ? undefined : () => rmSync(stateDir, { recursive: true, force: true })),
  };
}

/** Any other Worker (e.g. the bench's constant-response Worker) under `wrangler dev`. */
export async function startWorker(configPath) {
  const port = await freePort();
  const inspector = await freePort();
  const log = [];
  const child = spawn(
    process.execPath,
    [
      join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js'),
      'dev',
      '-c',
      configPath,
      '--ip',
      '127.0.0.1',
      '--port',
      String(port),
      '--inspector-port',
      String(inspector),
      '--show-interactive-dev-session=false',
    ],
    { cwd: root, env: wranglerEnv({ serve: true }), stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  );
  child.stdout.on('data', (d) => log.push(String(d)));
  child.stderr.on('data', (d) => log.push(String(d)));
  const base = `http://127.0.0.1:${port}`;
  await waitFor(base, child, log, 120_000);
  return { base, pid: child.pid, stop: stopper(child) };
}
