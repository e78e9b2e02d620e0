// Webhooks. Targets: events per second from trigger to receiver >= 200/s locally (2 cores),
// and added latency on the triggering request <= 1 ms p50 (the event's statements join the
// change's own batch: no D1 round trip more; delivery never runs inside the request), for a
// document write and for a comment; and the end-to-end rate >= 0.9 of the same writes' rate
// without an endpoint. The receiver is a Node server on
// loopback (npm start lets endpoints be http://127.0.0.1).
// Beside the rates, what bounds that ratio: the CPU the Worker's workerd spends on a write and
// on what an event adds (recording and delivery), against a bare Worker's POST of the same
// shape to the same receiver (bench/constant: one POST per event is the least a delivery is)
// and the same bare Worker's cost of the event's two rows in a write's batch.
import { createServer } from 'node:http';

export default async function webhooks(b) {
  let received = 0;
  let lastAt = 0;
  // While `hold` is set the receiver keeps its answer back: the endpoint's deliveries queue up
  // behind it (one at a time, in order), so their drain rate is measured apart from the writes.
  let hold = null;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', async () => {
      if (hold) await hold;
      received++;
      lastAt = performance.now();
      res.writeHead(200);
      res.end();
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${server.address().port}/hook`;
  try {
    const withHook = await b.makeUser();
    const without = await b.makeUser();
    const hook = await b.http('PUT', '/v1/admin/webhooks/bench', {
      token: withHook.token,
      json: { url, events: ['document.updated', 'comment.created'] },
    });
    if (hook.status !== 201) throw new Error(`webhook create: ${hook.status}`);
    for (const u of [withHook, without]) {
      await b.http('PUT', '/v1/vis/docs/bench_hook', { token: u.token });
      await b.http('PUT', '/v1/vis/docs/bench_hook/threads/bench', { token: u.token });
    }
    const write = (u, i) =>
      b.request('POST', '/v1/vis/docs/bench_hook/summary', { token: u.token, text: `summary ${i}` });
    const comment = (u, i) =>
      b.request('POST', '/v1/vis/docs/bench_hook/threads/bench', { token: u.token, text: `comment ${i}` });
    // The throughput writers run concurrently (b.request shares one socket: it would serialise them).
    const writeConcurrently = async (u, i) => {
      const r = await b.http('POST', '/v1/vis/docs/bench_hook/summary', { token: u.token, text: `summary ${i}` });
      await r.arrayBuffer();
    };

    // Added latency: the same request by an owner with an endpoint and by one without,
    // interleaved so that both share the machine's state; deliveries run meanwhile.
    const p50 = (ms) => [...ms].sort((a, c) => a - c)[Math.floor(ms.length / 2)];
    const addedLatency = async (label, send) => {
      const timed = { with: [], without: [] };
      for (let i = 0; i < 200; i++) {
        for (const [key, u] of i % 2
          ? [
              ['with', withHook],
              ['without', without],
            ]
          : [
              ['without', without],
              ['with', withHook],
            ]) {
          const t = performance.now();
          await send(u, i);
          timed[key].push(performance.now() - t);
        }
      }
      const added = +(p50(timed.with) - p50(timed.without)).toFixed(2);
      const name = `webhooks: added latency of ${label}`;
      b.results.push({
        name: `${name} (p50, ms)`,
        rps: '',
        p50_ms: added,
        p99_ms: '',
        errors: 0,
        ratio: '',
        target: 'target: <= 1 ms p50',
      });
      console.log(
        `${name.padEnd(48)}   p50 with ${p50(timed.with).toFixed(2)} ms, without ${p50(timed.without).toFixed(2)} ms: +${added} ms  target: <= 1 ms p50`,
      );
    };
    await addedLatency('an event', write);
    await addedLatency('comment.created', comment);

    // Throughput: 1000 events from 10 concurrent writers, until the receiver has them all;
    // end to end (bounded by the writes' own rate on a shared machine), then the drain rate of
    // a backlog (the receiver held its first answer until the writes were done, at most 12 s).
    await new Promise((ok) => setTimeout(ok, 2000));
    const N = 1000;
    const events = async (label, held) => {
      let release = () => {};
      if (held) hold = new Promise((ok) => (release = ok));
      const timer = held ? setTimeout(() => release(), 12_000) : null;
      const start = received;
      const cpu0 = b.cpu.platform();
      const t0 = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (next < N) await writeConcurrently(withHook, next++);
        }),
      );
      const triggered = performance.now();
      if (held) {
        clearTimeout(timer);
        release();
        hold = null;
      }
      const from = held ? performance.now() : t0;
      // oxlint-disable-next-line no-unmodified-loop-condition -- the receiver's handler counts `received` while the loop awaits
      for (let i = 0; i < 1200 && received - start < N; i++) await new Promise((ok) => setTimeout(ok, 50));
      const got = received - start;
      if (!held && cpu0 !== null && cpuPerWrite !== null) cpuPerEvent = (b.cpu.platform() - cpu0) / N - cpuPerWrite;
      const seconds = (lastAt - from) / 1000;
      const rate = Math.round(got / seconds);
      // End to end, against the same writes without an endpoint (measured just before): >= 0.9.
      const ofCeiling = held ? '' : +(rate / ceiling).toFixed(2);
      b.results.push({
        name: `webhooks: ${label}`,
        rps: rate,
        p50_ms: '',
        p99_ms: '',
        errors: N - got,
        ratio: ofCeiling,
        target: held ? 'target: >= 200/s' : 'target: >= 200/s, >= 0.9 of the no-endpoint writes',
      });
      console.log(
        `${`webhooks: ${label}`.padEnd(48)}   ${got}/${N} in ${seconds.toFixed(2)} s (writes took ${((triggered - t0) / 1000).toFixed(2)} s): ${rate}/s${held ? '' : ` = ${ofCeiling} of the no-endpoint writes (target >= 0.9)`}  target: >= 200/s`,
      );
    };
    // The ceiling of the end-to-end rate: the same 1000 writes by the owner without an endpoint.
    let ceiling = 0;
    // CPU ms of the Worker's workerd: per write without an endpoint, and what an event adds.
    let cpuPerWrite = null;
    let cpuPerEvent = null;
    {
      const cpu0 = b.cpu.platform();
      const t0 = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          while (next < N) await writeConcurrently(without, next++);
        }),
      );
      const rate = Math.round(N / ((performance.now() - t0) / 1000));
      ceiling = rate;
      if (cpu0 !== null) cpuPerWrite = (b.cpu.platform() - cpu0) / N;
      b.results.push({
        name: 'webhooks: the same writes, no endpoint (writes/s)',
        rps: rate,
        p50_ms: '',
        p99_ms: '',
        errors: 0,
        ratio: '',
        target: '',
      });
      console.log(
        `${'webhooks: the same writes, no endpoint'.padEnd(48)}   ${N} in ${(N / rate).toFixed(2)} s: ${rate} writes/s (the ceiling of the rate below)`,
      );
    }
    await events('events/s trigger -> receiver', false);
    await events('events/s, a backlog drained', true);

    // The floor: 1000 POSTs of a bare Worker to the same receiver, in turn (after 50 to warm up).
    const posts = (n) => fetch(`${b.constant}/post?n=${n}&url=${encodeURIComponent(url)}`);
    await (await posts(50)).text();
    const floor0 = b.cpu.constant();
    await (await posts(N)).text();
    const cpuPerPost = floor0 === null ? null : (b.cpu.constant() - floor0) / N;
    // And the two rows: a bare Worker's batches with and without them, in alternating blocks.
    const rows = async (mode, n) => {
      const cpu0 = b.cpu.constant();
      await (await fetch(`${b.constant}/rows?mode=${mode}&n=${n}`)).text();
      return b.cpu.constant() - cpu0;
    };
    await rows('write', 100);
    await rows('event', 100);
    let cpuPerRows = 0;
    for (let i = 0; i < 2; i++) cpuPerRows += ((await rows('event', N)) - (await rows('write', N))) / N / 2;
    if (cpuPerPost !== null && cpuPerWrite !== null && cpuPerEvent !== null) {
      const cpuRow = (name, ms, note) => {
        b.results.push({
          name: `${name} (CPU ms)`,
          rps: '',
          p50_ms: +ms.toFixed(3),
          p99_ms: '',
          errors: 0,
          ratio: '',
          target: note,
        });
        console.log(`${`${name} (CPU)`.padEnd(48)}   ${ms.toFixed(3)} ms  ${note}`);
      };
      cpuRow('webhooks: Worker, a write, no endpoint', cpuPerWrite, '');
      cpuRow('webhooks: Worker, what an event adds', cpuPerEvent, 'recording and delivery');
      cpuRow('webhooks: bare Worker, one POST (the floor)', cpuPerPost, 'the least a delivery costs');
      cpuRow('webhooks: bare Worker, the two rows (the floor)', cpuPerRows, 'the least recording in the batch costs');
      const floorRow = (name, best, note) => {
        b.results.push({ name, rps: '', p50_ms: '', p99_ms: '', errors: 0, ratio: best, target: note });
        console.log(`${name.padEnd(48)}   ${best} (${note})`);
      };
      const ratio = (extra) => +(cpuPerWrite / (cpuPerWrite + extra)).toFixed(2);
      floorRow(
        'webhooks: the ratio one POST leaves',
        ratio(cpuPerPost),
        "a write's CPU over a write's plus a bare POST's",
      );
      floorRow(
        'webhooks: the ratio the floor leaves',
        ratio(cpuPerPost + cpuPerRows),
        'the same, plus the two rows: the most an event in the batch and one POST allow',
      );
    }
  } finally {
    server.close();
  }
}
