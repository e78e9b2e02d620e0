#!/usr/bin/env node
// The Worker's size and startup time: `npm run bench` prints them first (before any server
// starts, so nothing else competes for the CPU); `node bench/size.mjs` prints them alone.
// Size: the modules `wrangler deploy --dry-run` would upload (raw, and each gzipped as the
// upload is), and the largest inputs by bytes in the output (esbuild's metafile). Startup:
// `wrangler check startup` on that same bundle, offline (a CPU profile of workerd importing
// the Worker's modules on this machine), as the span of its profile, the median of
// STARTUP_RUNS (5); the bench's empty Worker (bench/constant) measured the same way, the two
// taking turns.
// Targets: the Worker under 1.5 MiB gzip, its startup under 100 ms.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root } from '../scripts/serve.mjs';
import { buildWorker, runWrangler } from '../scripts/worker-build.mjs';

const RUNS = Number(process.env.STARTUP_RUNS ?? 5);
const MAX_GZIP = 1.5 * 1024 * 1024;
const MAX_STARTUP_MS = 100;
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;

/** The span (ms) of one `wrangler check startup` CPU profile of a built bundle. */
function startupSpan(dir, bundle) {
  const profile = join(dir, 'startup.cpuprofile');
  runWrangler(['check', 'startup', '--worker', bundle, '--outfile', profile]);
  const { startTime, endTime } = JSON.parse(readFileSync(profile, 'utf8'));
  return (endTime - startTime) / 1000;
}

/**
 * Median span (ms) of each bundle over RUNS runs, the bundles taking turns: this machine's
 * speed drifts by tens of ms between minutes, and alternating puts both in the same minutes.
 */
function startupMs(dir, bundles) {
  const spans = bundles.map(() => []);
  for (let i = 0; i < RUNS; i++) bundles.forEach((b, k) => spans[k].push(startupSpan(dir, b)));
  return spans.map((s) => {
    s.sort((a, b) => a - b);
    return +s[Math.floor(s.length / 2)].toFixed(1);
  });
}

/** Bytes in the output per package (node_modules) or per area (src/<area>, durable), largest first. */
function contributors(meta, count) {
  const by = {};
  for (const out of Object.values(meta.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(out.inputs)) {
      const key = path
        .replace(/^.*node_modules\/((@[^/]+\/)?[^/]+)\/.*$/, '$1')
        .replace(/^(src\/[^/]+)\/.*$/, '$1/')
        .replace(/^durable\/.*$/, 'durable/');
      by[key] = (by[key] ?? 0) + bytesInOutput;
    }
  }
  return Object.entries(by)
    .sort((a, b) => b[1] - a[1])
    .slice(0, count);
}

/** Measures, prints and returns the rows (name, bytes, gzip_bytes, startup_ms, target). */
export async function measureSize() {
  const dir = mkdtempSync(join(tmpdir(), 'bench-size-'));
  try {
    const worker = await buildWorker(join(dir, 'platform'));
    const empty = await buildWorker(join(dir, 'constant'), join(root, 'bench', 'constant', 'wrangler.toml'));
    const [workerMs, emptyMs] = startupMs(dir, [worker.bundle, empty.bundle]);
    const rows = [
      {
        name: 'Worker bundle (wrangler deploy --dry-run)',
        bytes: worker.raw,
        gzip_bytes: worker.gzip,
        target: `gzip < ${kib(MAX_GZIP)}`,
      },
      {
        name: 'Worker startup (wrangler check startup)',
        startup_ms: workerMs,
        target: `< ${MAX_STARTUP_MS} ms`,
      },
      { name: 'empty Worker startup (bench/constant)', startup_ms: emptyMs, target: '' },
    ];
    const [size, startup, baseline] = rows;
    console.log(
      `${size.name.padEnd(48)} ${kib(size.bytes).padStart(12)}  gzip ${kib(size.gzip_bytes)}  ${size.gzip_bytes < MAX_GZIP ? 'ok' : 'OVER'} ${size.target}`,
    );
    console.log(
      `${startup.name.padEnd(48)} ${startup.startup_ms.toFixed(1).padStart(9)} ms  (median of ${RUNS})  ${startup.startup_ms < MAX_STARTUP_MS ? 'ok' : 'OVER'} ${startup.target}`,
    );
    console.log(`${baseline.name.padEnd(48)} ${baseline.startup_ms.toFixed(1).padStart(9)} ms`);
    console.log(
      `largest inputs: ${contributors(worker.meta, 10)
        .map(([k, n]) => `${k} ${kib(n)}`)
        .join(', ')}`,
    );
    return rows;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && pathToFileURL(process.argv[1]).href === import.meta.url) await measureSize();
