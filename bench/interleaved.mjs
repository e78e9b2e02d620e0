// Latency timing for ratios of two requests: they alternate one at a time over one
// keep-alive connection, each timed with process.hrtime, so both see the same machine load
// (the bench machine is shared) and the figures are not rounded to whole milliseconds
// (autocannon's latencies are: at 1-5 ms that makes the ratio of two p50s jump by 50% or more).

/**
 * Latencies (ms) of each request, sent in turns over one keep-alive connection: every
 * round sends each request once, in an order that alternates between rounds. A request's
 * `headers` may be a function: called per request (a fresh Idempotency-Key each time).
 */
export async function interleaved(b, requests, samples = 400, warmup = 40) {
  const once = async ({ method, path, headers, body }) => {
    const start = process.hrtime.bigint();
    const res = await b.request(method, path, { headers: typeof headers === 'function' ? headers() : headers, body });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status}`);
    return Number(process.hrtime.bigint() - start) / 1e6;
  };
  const out = requests.map(() => []);
  for (let round = 0; round < warmup + samples; round++) {
    const order = round % 2 ? [...requests.keys()].reverse() : [...requests.keys()];
    for (const i of order) {
      const ms = await once(requests[i]);
      if (round >= warmup) out[i].push(ms);
    }
  }
  return out.map((ms) => ms.sort((x, y) => x - y));
}

export const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** Records a latency row (sorted ms) in the bench results and prints it. */
export function record(b, name, sorted, target = '') {
  const row = {
    name,
    rps: '',
    p50_ms: +quantile(sorted, 0.5).toFixed(2),
    p99_ms: +quantile(sorted, 0.99).toFixed(2),
    errors: 0,
    ratio: '',
    target,
  };
  b.results.push(row);
  console.log(
    `${name.padEnd(48)}  p10 ${quantile(sorted, 0.1).toFixed(2)} ms  p50 ${row.p50_ms} ms  p90 ${quantile(sorted, 0.9).toFixed(2)} ms  p99 ${row.p99_ms} ms  ${target}`,
  );
}
