// Jobs: trigger → result of a trivial code step (target p50 <= 30 ms warm), the same trigger
// with a fresh Idempotency-Key per request against it without (target: adds <= 1 ms to the
// p50; interleaved, so both see the same machine load), and GET runs with 100,000 runs of
// history against the same with 100 (target: within 1.5x).
// History is seeded straight into the server's local D1 (bench/local-d1.mjs).
import { randomUUID } from 'node:crypto';
import { interleaved, quantile, record } from '../interleaved.mjs';
import { seedRuns, stateDirOf } from '../local-d1.mjs';

const KEY_SAMPLES = 500;

export default async function jobs(b) {
  const u = await b.makeUser();
  const auth = { Authorization: `Bearer ${u.token}` };
  const put = async (path, init = {}) => {
    const r = await b.http(init.method ?? 'PUT', path, { token: u.token, ...init });
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  };
  await put('/v1/code/jobs/trivial');
  await put('/v1/code/jobs/trivial/code/index.js', {
    method: 'POST',
    body: "export default { async run() { return 'ok'; } }",
    type: 'text/javascript',
  });
  for (let i = 0; i < 5; i++) await b.http('POST', '/v1/code/jobs/trivial/data', { token: u.token, json: {} }); // warm the sandbox
  await b.measure('jobs: POST data, trivial code step (trigger → result)', '/v1/code/jobs/trivial/data', {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: '{}',
    target: 'target: p50 <= 30 ms warm',
  });
  // Idempotency-Key: each request a new key (a claim, the run, the answer stored), beside the plain trigger.
  const plain = {
    method: 'POST',
    path: '/v1/code/jobs/trivial/data',
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: '{}',
  };
  const keyed = { ...plain, headers: () => ({ ...plain.headers, 'Idempotency-Key': randomUUID() }) };
  const [plainLat, keyedLat] = await interleaved(b, [plain, keyed], KEY_SAMPLES);
  record(b, `jobs: POST data, interleaved x${KEY_SAMPLES}`, plainLat);
  record(b, `jobs: POST data + Idempotency-Key, interleaved x${KEY_SAMPLES}`, keyedLat, 'target: p50 <= plain + 1 ms');
  const added = quantile(keyedLat, 0.5) - quantile(plainLat, 0.5);
  console.log(
    `jobs: Idempotency-Key adds ${added.toFixed(2)} ms to the trigger's p50 (target <= 1 ms): ${added <= 1 ? 'met' : 'MISSED'}`,
  );

  const stateDir = stateDirOf(new URL(b.base).port);
  await put('/v1/code/jobs/small');
  await put('/v1/code/jobs/large');
  seedRuns(stateDir, u.username, 'small', 100);
  seedRuns(stateDir, u.username, 'large', 100_000);
  const small = await b.measure('jobs: GET runs, 100 runs of history', '/v1/code/jobs/small/runs', { headers: auth });
  const large = await b.measure('jobs: GET runs, 100,000 runs of history', '/v1/code/jobs/large/runs', {
    headers: auth,
    target: 'target: within 1.5x of 100 runs',
  });
  console.log(
    `jobs: GET runs p50 100k/100 = ${(large.p50_ms / small.p50_ms).toFixed(2)}x, req/s 100/100k = ${(small.rps / large.rps).toFixed(2)}x`,
  );
  await b.time(
    'jobs: GET stats/runs, 100,000 runs (streamed)',
    async () => {
      const r = await b.http('GET', '/v1/code/jobs/large/stats/runs', { token: u.token });
      await r.arrayBuffer();
    },
    3,
  );
}
