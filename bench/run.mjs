#!/usr/bin/env node
// npm run bench: starts the platform (as npm start does) and a constant-response Worker on
// the same workerd, runs every scenario in bench/scenarios/*.mjs, and prints requests/s,
// p50/p99 latencies and the ratio of each to the constant Worker measured in this run.
// Throughput (req/s, ratio) is measured with BENCH_CONNECTIONS (10) concurrent connections;
// latencies with one connection, so they show the request's own cost, not queueing.
// `npm run bench -- <name-filter>` runs only the scenario files whose name contains it.
// Each measured request is first sent once to read its D1 round trips (the platform's
// `Server-Timing: d1;desc="N round trips"`), reported beside its ratio to the D1 floor
// (a bare Worker doing one D1 query per request: `floor`).
// First of all, before any server starts: the Worker's bundle size and startup time
// (bench/size.mjs).
import autocannon from 'autocannon';
import { readdirSync, writeFileSync } from 'node:fs';
import nodeHttp from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { root, startPlatform, startWorker } from '../scripts/serve.mjs';
import { workerCpu } from './cpu.mjs';
import { measureSize } from './size.mjs';
import { onStall, watched } from './watchdog.mjs';

const DURATION = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const filter = process.argv[2] ?? '';

function load(
  url,
  { method = 'GET', headers = {}, body, connections = CONNECTIONS, duration = DURATION, amount } = {},
) {
  const run = new Promise((ok, fail) => {
    autocannon({ url, method, headers, body, connections, ...(amount ? { amount } : { duration }) }, (err, r) =>
      err ? fail(err) : ok(r),
    );
  });
  return watched(`load ${method} ${url}`, run, amount ? 0 : duration * 1000);
}

const results = [];
let baseline = null;

let floor = null;

/** D1 round trips a platform answer reports (Server-Timing), '' when it does not say. */
function d1Trips(headers) {
  const m = /d1;desc="(\d+) round trips?"/.exec(String(headers['server-timing'] ?? ''));
  return m ? Number(m[1]) : '';
}

/** Throughput from the loaded run (`r`), latencies from the one-connection run (`lat`). */
function record(name, r, target, lat = r, d1 = '', floorRps = floor?.rps) {
  const row = {
    name,
    rps: Math.round(r.requests.average),
    p50_ms: lat.latency.p50,
    p99_ms: lat.latency.p99,
    errors: r.errors + r.non2xx + (lat === r ? 0 : lat.errors + lat.non2xx),
    ratio: baseline ? +(r.requests.average / baseline.requests.average).toFixed(2) : 1,
    floor: floorRps ? +(r.requests.average / floorRps).toFixed(2) : '',
    d1_round_trips: d1,
    target: target ?? '',
  };
  results.push(row);
  const extra = `${row.floor !== '' ? `  floor ${row.floor}` : ''}${d1 !== '' ? `  d1 ${d1}` : ''}`;
  console.log(
    `${name.padEnd(48)} ${String(row.rps).padStart(7)} req/s  p50 ${String(row.p50_ms).padStart(5)} ms  p99 ${String(row.p99_ms).padStart(5)} ms  ratio ${row.ratio}${extra}  ${row.errors ? `ERRORS ${row.errors}` : ''} ${row.target}`,
  );
  return row;
}

async function main() {
  console.log('# size and startup');
  results.push(...(await measureSize()));
  console.log('');
  const constant = await startWorker(join(root, 'bench', 'constant', 'wrangler.toml'));
  // The bench sends tens of thousands of requests a minute on one token: no rate limits.
  const platform = await startPlatform({ extraArgs: ['--var', 'RATE_LIMITING:off'] });
  onStall(() => {
    fetch(`${platform.base}/v1/openapi.json`)
      .then((r) => r.arrayBuffer())
      .catch(() => undefined);
  });
  // A lean client for timed requests: node:http over one keep-alive socket (fetch adds
  // ~3 ms per request of its own here, which would be counted as the platform's).
  const agent = new nodeHttp.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const http = async (method, path, { token, text, json, body, type, headers = {} } = {}) => {
      const h = { ...headers };
      if (token) h.Authorization = `Bearer ${token}`;
      if (text !== undefined) {
        body = text;
        h['Content-Type'] = type ?? 'text/plain';
      } else if (json !== undefined) {
        body = JSON.stringify(json);
        h['Content-Type'] = type ?? 'application/json';
      }
      return watched(`${method} ${path}`, fetch(platform.base + path, { method, headers: h, body }));
    };
    const base = new URL(platform.base);
    const request = (method, path, { token, text, json, body, headers = {} } = {}) =>
      watched(
        `${method} ${path}`,
        new Promise((ok, fail) => {
          const h = { ...headers };
          if (token) h.Authorization = `Bearer ${token}`;
          if (text !== undefined) [body, h['Content-Type']] = [text, 'text/plain'];
          else if (json !== undefined) [body, h['Content-Type']] = [JSON.stringify(json), 'application/json'];
          if (body !== undefined) h['Content-Length'] = Buffer.byteLength(body);
          const req = nodeHttp.request(
            { host: base.hostname, port: base.port, method, path, headers: h, agent },
            (res) => {
              const chunks = [];
              res.on('data', (c) => chunks.push(c));
              res.on('end', () =>
                ok({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString() }),
              );
            },
          );
          req.on('error', fail);
          req.end(body);
        }),
      );
    let n = 0;
    const makeUser = async (fields = {}) => {
      const username = `bench${Date.now().toString(36)}${n++}`;
      const password = `pw-${username}`;
      const c = await http('PUT', `/v1/ops/users/${username}`, { token: platform.ops, json: { password, ...fields } });
      if (c.status !== 201) throw new Error(`create user: ${c.status}`);
      const { token } = await (await http('POST', '/v1/token', { json: { username, password } })).json();
      return { username, password, token };
    };
    const b = {
      base: platform.base,
      ops: platform.ops,
      /** The constant Worker (its routes: bench/constant/index.js). */
      constant: constant.base,
      /** CPU ms used so far by the workerd of the platform's Worker and of the constant Worker (bench/cpu.mjs). */
      cpu: { platform: workerCpu(platform.pid), constant: workerCpu(constant.pid) },
      http,
      /** Lean request for timed loops: resolves {status, text} once the body is read. */
      request,
      makeUser,
      /** Load-tests one request against the platform and records it. */
      measure: async (name, path, opts = {}) => {
        // opts.nearFloor: the D1 floor measured right before and right after this load (their
        // mean), not once at the start: on a shared machine the speed drifts within a run.
        const floorNow = async () => (await load(`${constant.base}/d1`)).requests.average;
        const before = opts.nearFloor ? await floorNow() : undefined;
        const loaded = await load(platform.base + path, opts);
        const nearFloor = opts.nearFloor ? (before + (await floorNow())) / 2 : undefined;
        const single = await load(platform.base + path, { ...opts, connections: 1 });
        // Round trips in the steady state: the fewer of two requests after the load (either
        // may land on the refresh of the token's 10 s isolate cache, one extra round trip).
        const probes = [];
        for (let i = 0; i < 2; i++)
          probes.push(await request(opts.method ?? 'GET', path, { headers: opts.headers, body: opts.body }));
        const trips = probes.map((p) => d1Trips(p.headers)).filter((t) => t !== '');
        const row = record(name, loaded, opts.target, single, trips.length ? Math.min(...trips) : '', nearFloor);
        if (nearFloor) console.log(`${''.padEnd(49)}floor measured beside it: ${Math.round(nearFloor)} req/s`);
        return row;
      },
      /**
       * Times `fn` `count` times sequentially (for non-HTTP-shaped work), records p50/p99; `between(i)` runs untimed
       * after each.
       */
      time: async (name, fn, count = 20, target, between) => {
        const ms = [];
        for (let i = 0; i < count; i++) {
          const t = performance.now();
          await fn(i);
          ms.push(performance.now() - t);
          if (between) await between(i);
        }
        ms.sort((a, c) => a - c);
        const pick = (q) => +ms[Math.min(ms.length - 1, Math.floor(q * ms.length))].toFixed(2);
        const row = {
          name,
          rps: '',
          p50_ms: pick(0.5),
          p99_ms: pick(0.99),
          errors: 0,
          ratio: '',
          target: target ?? '',
        };
        results.push(row);
        console.log(`${name.padEnd(48)}   timed x${count}  p50 ${row.p50_ms} ms  p99 ${row.p99_ms} ms  ${row.target}`);
        return row;
      },
      results,
    };

    // Warm both, then the baseline.
    await load(constant.base, { duration: 1 });
    baseline = await load(constant.base);
    record('constant worker (baseline)', baseline, undefined, await load(constant.base, { connections: 1 }));
    // The same bare Worker answering after one D1 query: local D1's own ceiling, which no
    // platform route that reads D1 on every request can beat.
    b.d1Floor = record(
      'D1 floor: bare Worker, one D1 query per request',
      await load(`${constant.base}/d1`),
      undefined,
      await load(`${constant.base}/d1`, { connections: 1 }),
      1,
    );
    floor = b.d1Floor;

    const files = readdirSync(join(root, 'bench', 'scenarios'))
      .filter((f) => f.endsWith('.mjs') && f.includes(filter))
      .sort();
    for (const f of files) {
      console.log(`\n# ${f}`);
      const mod = await import(pathToFileURL(join(root, 'bench', 'scenarios', f)).href);
      await mod.default(b);
    }
  } finally {
    agent.destroy();
    await platform.stop();
    await constant.stop();
  }
  writeFileSync(join(root, '.wrangler', 'bench-results.json'), JSON.stringify(results, null, 2));
  console.log('\nresults written to .wrangler/bench-results.json');
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
