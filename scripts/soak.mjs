#!/usr/bin/env node
// npm run soak [-- --minutes N] [-- --concurrency C] [-- --idle-seconds S]: starts the platform (as npm start does,
// loopback only, fresh state), runs a mixed workload (reads, writes, document churn, asset
// uploads, job runs, test sends) at bounded concurrency for N minutes (default 10), and
// prints every 30 s: throughput, p50/p99 latency, errors (5xx and network failures), the RSS
// of each process of the server (scripts/soak-probe.mjs) and the V8 heap of the Worker's
// isolate (read over the runtime's inspector); at the end both series, and how often wrangler
// reloaded the runtime. It fails (exit 1) when the RSS of the last third of the run grows by 10%
// or more (no plateau) or when any request answered 5xx (or 429: the soak runs without rate limits).
// --idle-seconds S: afterwards samples memory every 15 s for S seconds without load.
// --floor 0: skip the floor, run by default once the platform has stopped: the same number of
// requests at the same concurrency to a bare Worker that makes one D1 query each (bench/constant,
// GET /d1) under the same `wrangler dev`, its memory sampled the same way, so the platform's RSS
// is read beside what the local stack alone keeps for that load. Not part of npm test.
import { join } from 'node:path';
import { root, startPlatform, startWorker } from './serve.mjs';
import { isolateHeapSampler, myProcesses, rssByRole } from './soak-probe.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const MINUTES = arg('minutes', Number(process.env.SOAK_MINUTES ?? 10));
const CONCURRENCY = arg('concurrency', 8);
const REPORT_MS = arg('report-seconds', 30) * 1000;
/** After the load: keep sampling the RSS this long with no requests (is memory returned when idle?). */
const IDLE_S = arg('idle-seconds', 0);
const FLOOR = arg('floor', 1) !== 0;

/** RSS (KiB) by role of the server we started (scripts/soak-probe.mjs). */
let servedPort = '';
const rss = () => rssByRole(myProcesses(), servedPort);
const heap = isolateHeapSampler();
const mib = (kib) => (kib / 1024).toFixed(0);
/** wrangler's answer to a non-GET request when its proxy's fetch to the Worker's runtime failed (docs/PERFORMANCE.md, Memory). */
const PROXY_503 = /Your worker restarted mid-request/;
/** Times wrangler restarted the Worker's runtime (a reload: a watched file changed). */
const reloads = () => server.log.join('').split('Reloading local server').length - 1;

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const CODE =
  'export default { async run(input, ctx) { ctx.log("hi"); const t = await input[0].text(); return { got: t.length, at: Date.now() }; } };';

// Rate limits off (as the bench and the e2e suite do): one token at hundreds of requests a second
// would otherwise measure mostly 429 answers, not the work.
const server = await startPlatform({ extraArgs: ['--var', 'RATE_LIMITING:off'] });
const { base, ops } = server;
servedPort = new URL(base).port;
let stopping = false;
/** The server the soak runs against now (the platform, then the floor's Worker). */
let serving = server;
const stop = async (code) => {
  if (stopping) return;
  stopping = true;
  await serving.stop();
  process.exit(code);
};
process.on('SIGINT', () => stop(130));

async function req(method, path, { token, body, type } = {}) {
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (type) headers['Content-Type'] = type;
  const res = await fetch(base + path, { method, headers, body });
  const buf = await res.arrayBuffer();
  return { status: res.status, text: () => Buffer.from(buf).toString() };
}

// A world: one user with a verified address, a few documents, a mail, a job with code.
const json = 'application/json';
const email = 'soak@example.com';
await req('PUT', '/v1/ops/users/soak', {
  token: ops,
  body: JSON.stringify({ password: 'soak-pw', email, email_verified: true }),
  type: json,
});
const token = JSON.parse(
  (
    await req('POST', '/v1/token', { body: JSON.stringify({ username: 'soak', password: 'soak-pw' }), type: json })
  ).text(),
).token;
const docs = ['d0', 'd1', 'd2', 'd3'];
for (const d of docs) {
  await req('PUT', `/v1/vis/docs/${d}`, { token });
  await req('POST', `/v1/vis/docs/${d}/content`, { token, body: `# ${d}\n\nSome **text**.`, type: 'text/plain' });
}
await req('PUT', '/v1/vis/mails/m0', { token });
await req('POST', '/v1/vis/mails/m0/subject', { token, body: 'Soak', type: 'text/plain' });
await req('POST', '/v1/vis/mails/m0/content', { token, body: '# Hello\n\nfrom the soak', type: 'text/plain' });
await req('PUT', '/v1/code/jobs/j0', { token });
await req('POST', '/v1/code/jobs/j0/code/index.js', { token, body: CODE, type: 'text/javascript' });

let seq = 0;
/** The mixed workload: [weight, name, action]. */
const MIX = [
  [20, 'whoami', () => req('GET', '/v1/whoami', { token })],
  [15, 'doc read', () => req('GET', `/v1/vis/docs/${docs[seq % 4]}/content`, { token })],
  [
    10,
    'doc write',
    () =>
      req('POST', `/v1/vis/docs/${docs[seq % 4]}/content`, {
        token,
        body: `# v${seq}\n\n${'text '.repeat(seq % 200)}`,
        type: 'text/plain',
      }),
  ],
  [8, 'doc html', () => req('GET', `/v1/u/soak/d/${docs[seq % 4]}`, { token })],
  [8, 'listing', () => req('GET', '/v1/vis/docs', { token })],
  [
    8,
    'doc churn',
    async () => {
      const n = `c${seq}`;
      await req('PUT', `/v1/vis/docs/${n}`, { token });
      await req('POST', `/v1/vis/docs/${n}/assets/a.png`, { token, body: PNG, type: 'image/png' });
      return req('DELETE', `/v1/vis/docs/${n}`, { token });
    },
  ],
  [8, 'job run', () => req('POST', '/v1/code/jobs/j0/data', { token, body: JSON.stringify({ seq }), type: json })],
  [
    2,
    'job code',
    () =>
      req('POST', '/v1/code/jobs/j0/code/index.js', { token, body: `${CODE}\n// ${seq % 3}`, type: 'text/javascript' }),
  ],
  [3, 'mail test', () => req('POST', '/v1/vis/mails/m0/status', { token, body: 'test', type: 'text/plain' })],
  [4, 'gql', () => req('POST', '/gql', { token, body: JSON.stringify({ query: '{ __typename }' }), type: json })],
  [4, 'unknown', () => req('GET', `/v1/nope/${seq}`, { token })],
];
// SOAK_ONLY=<comma-separated names> / SOAK_SKIP=...: run a part of the mix (to find what grows).
const only = process.env.SOAK_ONLY?.split(',');
const skip = process.env.SOAK_SKIP?.split(',') ?? [];
for (let i = MIX.length - 1; i >= 0; i--)
  if ((only && !only.includes(MIX[i][1])) || skip.includes(MIX[i][1])) MIX.splice(i, 1);
const total = MIX.reduce((s, [w]) => s + w, 0);
const pick = () => {
  let r = Math.random() * total;
  for (const m of MIX) if ((r -= m[0]) < 0) return m;
  return MIX[0];
};

const started = Date.now();
const end = started + MINUTES * 60_000;
let window = [];
let errors = 0;
let allErrors = 0;
const samples = [];
const errorKinds = new Map();

const count = (kind) => errorKinds.set(kind, (errorKinds.get(kind) ?? 0) + 1);

async function worker() {
  // oxlint-disable-next-line no-unmodified-loop-condition -- the SIGINT handler sets `stopping` while the loop awaits
  while (Date.now() < end && !stopping) {
    seq++;
    const [, name, action] = pick();
    const t0 = performance.now();
    try {
      const r = await action();
      if ((r.status >= 500 && !(name === 'job run' && r.status === 502)) || r.status === 429) {
        errors++;
        count(`${name} ${r.status}${r.status === 503 && PROXY_503.test(r.text()) ? ' (wrangler proxy)' : ''}`);
      }
    } catch (err) {
      errors++;
      count(`${name} ${err.cause?.code ?? err.message}`);
    }
    window.push(performance.now() - t0);
  }
}

const pct = (xs, p) => (xs.length ? xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] : 0);
/** RSS by process and the isolate's heap, as printed: "workerd 812 MiB (worker 640, proxy 172), wrangler 310, heap 41/70 MiB". */
async function memory() {
  const r = rss();
  const h = await heap();
  const hs = h ? `${(h.used / 2 ** 20).toFixed(1)}/${(h.total / 2 ** 20).toFixed(0)}` : 'n/a';
  const text = `workerd ${mib(r.workerd)} MiB (worker ${mib(r.worker)}, proxy ${mib(r.proxy)}), wrangler node ${mib(r.wrangler)}, isolate heap ${hs} MiB`;
  return { ...r, heap: h?.used ?? null, text };
}
async function report() {
  const lat = window.sort((a, b) => a - b);
  const rate = (lat.length / (REPORT_MS / 1000)).toFixed(1);
  window = [];
  const m = await memory();
  const t = Math.round((Date.now() - started) / 1000);
  samples.push({ t, rss: m.workerd, heap: m.heap });
  console.log(
    `t=${String(t).padStart(4)}s  ${rate.padStart(6)} req/s  p50 ${pct(lat, 50).toFixed(0).padStart(5)} ms  p99 ${pct(lat, 99).toFixed(0).padStart(5)} ms  errors ${errors}  ${m.text}`,
  );
  allErrors += errors;
  errors = 0;
}

console.log(`soak: ${MINUTES} min, ${CONCURRENCY} concurrent, against ${base}; at start ${(await memory()).text}`);
const timer = setInterval(report, REPORT_MS);
await Promise.all(Array.from({ length: CONCURRENCY }, worker));
clearInterval(timer);
await report();

// The plateau: RSS over the last third of the run grows by less than 10%; the heap is printed beside it.
const third = samples.filter((s) => s.t >= (MINUTES * 60 * 2) / 3);
const growth = (key) => {
  const xs = third.map((s) => s[key]).filter((x) => x !== null);
  return xs.length && xs[0] ? { from: xs[0], to: Math.max(...xs), g: (Math.max(...xs) - xs[0]) / xs[0] } : null;
};
const r = growth('rss');
const h = growth('heap');
const series = (key, f) => samples.map((s) => (s[key] === null ? '-' : f(s[key]))).join(' ');
console.log(`RSS series (workerd, MiB): ${series('rss', mib)}`);
console.log(`heap series (isolate used, MiB): ${series('heap', (b) => (b / 2 ** 20).toFixed(0))}`);
console.log(
  `last third: RSS ${mib(r?.from ?? 0)} -> ${mib(r?.to ?? 0)} MiB (${((r?.g ?? 0) * 100).toFixed(1)}%)` +
    `, isolate heap ${h ? `${(h.from / 2 ** 20).toFixed(1)} -> ${(h.to / 2 ** 20).toFixed(1)} MiB (${(h.g * 100).toFixed(1)}%)` : 'n/a'}` +
    `; wrangler reloads ${reloads()}; errors ${allErrors}${errorKinds.size ? ` (${[...errorKinds].map(([k, v]) => `${k}: ${v}`).join(', ')})` : ''}`,
);
for (let t = 15; t <= IDLE_S; t += 15) {
  await new Promise((res) => setTimeout(res, 15_000));
  console.log(`idle ${String(t).padStart(4)}s  ${(await memory()).text}`);
}
const ok = (r?.g ?? 0) < 0.1 && allErrors === 0;
if (FLOOR) {
  const last = await memory();
  await server.stop();
  const floor = await floorFor(seq);
  const times = (a, b) => (b ? (a / b).toFixed(2) : 'n/a');
  console.log(
    `floor: a bare Worker with one D1 query a request, ${seq} requests, ${CONCURRENCY} concurrent: ${floor.text}` +
      `; the platform ended at workerd ${mib(last.workerd)} MiB (worker ${mib(last.worker)}, proxy ${mib(last.proxy)}):` +
      ` ${times(last.workerd, floor.workerd)}x the floor's (worker ${times(last.worker, floor.worker)}x, proxy ${times(last.proxy, floor.proxy)}x)`,
  );
}
console.log(ok ? 'soak: ok (memory plateaus, no errors)' : 'soak: FAILED');
await stop(ok ? 0 : 1);

/** The floor: `requests` GETs of bench/constant's /d1, CONCURRENCY at a time; its memory once they are answered. */
async function floorFor(requests) {
  serving = await startWorker(join(root, 'bench', 'constant', 'wrangler.toml'));
  servedPort = new URL(serving.base).port;
  console.log(`floor: at start ${(await memory()).text}`);
  let sent = 0;
  let failed = 0;
  const t0 = Date.now();
  const progress = setInterval(
    async () => console.log(`floor t=${Math.round((Date.now() - t0) / 1000)}s  ${sent} sent  ${(await memory()).text}`),
    REPORT_MS,
  );
  const one = async () => {
    // oxlint-disable-next-line no-unmodified-loop-condition -- the SIGINT handler sets `stopping` while the loop awaits
    while (sent < requests && !stopping) {
      sent++;
      const res = await fetch(`${serving.base}/d1`).catch(() => null);
      if (!res?.ok) failed++;
      await res?.arrayBuffer();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, one));
  clearInterval(progress);
  const m = await memory();
  if (failed) console.log(`floor: ${failed} requests failed`);
  return m;
}
