#!/usr/bin/env node
// npm start: make .dev.vars (random OPS_TOKEN) when missing and public/ (the static assets:
// scripts/assets.mjs), apply D1 migrations to the local state, then serve the platform with
// `wrangler dev` on http://127.0.0.1:8787.
// PORT and PERSIST_TO override the port and the state folder (the e2e tests use both); the
// canonical urls (PUBLIC_ORIGIN) follow PORT unless PUBLIC_ORIGIN is set;
// INSPECT=1 turns on wrangler's DevTools inspector (off by default: scripts/wrangler-env.mjs).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { prepareAssets } from './assets.mjs';
import { watchIsolates } from './isolates.mjs';
import { localBrowserSetup } from './local-browser.mjs';
import { wranglerEnv } from './wrangler-env.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const port = process.env.PORT ?? '8787';
const persistTo = resolve(root, process.env.PERSIST_TO ?? '.wrangler/state');
const devVars = join(root, '.dev.vars');
const wrangler = join(root, 'node_modules', 'wrangler', 'bin', 'wrangler.js');

const env = wranglerEnv();

if (!existsSync(devVars)) {
  writeFileSync(devVars, `OPS_TOKEN=${randomBytes(24).toString('hex')}\nALLOW_CLOCK_OVERRIDE=false\n`, { mode: 0o600 });
  console.log(`Created ${devVars} with a random OPS_TOKEN (the operator token: see README).`);
} else if (!/^OPS_TOKEN=/m.test(readFileSync(devVars, 'utf8'))) {
  console.warn(`${devVars} has no OPS_TOKEN: the operator interface (/v1/ops) is disabled.`);
}
console.log(`Operator token: OPS_TOKEN in ${devVars}`);

// Locally the canonical urls (item pages, webhook payloads, unsubscribe links, the OpenAPI
// servers) follow PORT, unless PUBLIC_ORIGIN is set (the environment or .dev.vars).
const ownOrigin =
  process.env.PUBLIC_ORIGIN ??
  (/^PUBLIC_ORIGIN=/m.test(readFileSync(devVars, 'utf8')) ? null : `http://127.0.0.1:${port}`);

localBrowserSetup();
prepareAssets(); // public/: the static assets wrangler.toml's [assets] serves
await watchIsolates(); // build/: the code of the isolates the Worker Loader runs, kept current

const migrate = spawnSync(
  process.execPath,
  [wrangler, 'd1', 'migrations', 'apply', 'DB', '--local', '--persist-to', persistTo],
  {
    cwd: root,
    env: { ...env, CI: 'true' }, // CI=true: apply without the interactive confirmation
    encoding: 'utf8',
  },
);
const migrateOutput = `${migrate.stdout ?? ''}${migrate.stderr ?? ''}`;
if (migrate.status !== 0) {
  process.stderr.write(migrateOutput);
  process.exit(migrate.status ?? 1);
}
// wrangler prints its whole table once per migration: one line per migration applied instead.
const applied = [...new Set(migrateOutput.match(/\b\d{4}_[\w-]+\.sql\b/g) ?? [])];
console.log(
  /No migrations to apply/i.test(migrateOutput) || !applied.length
    ? 'D1 migrations: none to apply'
    : applied.map((m) => `D1 migration applied: ${m}`).join('\n'),
);

const dev = spawn(
  process.execPath,
  [
    wrangler,
    'dev',
    '--ip',
    '127.0.0.1',
    '--port',
    port,
    '--persist-to',
    persistTo,
    '--show-interactive-dev-session=false',
    // GET /__scheduled?cron=... runs scheduled() (the cron tick) locally. wrangler's own
    // /cdn-cgi/handler/scheduled does not reach a Worker with static assets ([assets]): local
    // dev hands it to the assets router, which has no scheduled handler (500 "exception").
    '--test-scheduled',
    // Local development: webhook endpoints may be http://127.0.0.1 (a receiver on this
    // machine). Production never sets it (wrangler.toml has no such var).
    '--var',
    'WEBHOOKS_ALLOW_LOOPBACK:true',
    // No DNS-over-HTTPS lookups of outbound host names from a local machine (no resolver to reach).
    '--var',
    'OUTBOUND_RESOLVER:off',
    // Public reads from the edge through caches.default (Workers Cache is not emulated locally).
    '--var',
    'EDGE_CACHE:local',
    ...(ownOrigin ? ['--var', `PUBLIC_ORIGIN:${ownOrigin}`] : []),
    ...process.argv.slice(2),
  ],
  { cwd: root, env: wranglerEnv({ serve: true }), stdio: ['inherit', 'pipe', 'inherit'] },
);
// wrangler dev compares worker-configuration.d.ts with the Env it would generate from this
// start's bindings, which include the local-only keys (.dev.vars, the --var above) that the
// committed file leaves out on purpose (scripts/wrangler-types.mjs; `npm run lint` checks it
// from a clean tree). Its "types might be out of date" would show on every start: dropped.
createInterface({ input: dev.stdout, crlfDelay: Infinity }).on('line', (line) => {
  if (!/Your types might be out of date/.test(line)) process.stdout.write(`${line}\n`);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => dev.kill(sig));
dev.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
