// What `npm run soak` samples of the local server besides its answers: the RSS of each process
// `wrangler dev` runs (the Worker's workerd, wrangler's proxy workerd in front of it, wrangler's
// node processes) and the V8 heap of the Worker's isolate, read over the runtime's DevTools
// inspector (Chrome DevTools Protocol `Runtime.getHeapUsage`; workerd has no `performance.memory`).
//
// The inspector: wrangler starts the Worker's workerd with `--inspector-addr=localhost:0` even
// with its own inspector proxy off (scripts/wrangler-env.mjs), so the runtime's inspector
// listens on a port of its own; it is found among the process's listening sockets (`ss`) by
// asking each for its DevTools targets. Only `Runtime.getHeapUsage` is sent: workerd never
// answers `HeapProfiler.collectGarbage` or `HeapProfiler.enable`, and a session left waiting on
// one stopped answering anything else. Job sandboxes (Worker Loader isolates) are not targets.
import { execFileSync } from 'node:child_process';

/** `ps -eo pid=,ppid=,rss=,args=` → rows (rss in KiB). */
export function parsePs(out) {
  return out
    .split('\n')
    .map((l) => /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(.*)$/.exec(l))
    .filter(Boolean)
    .map((m) => ({ pid: +m[1], ppid: +m[2], rss: +m[3], args: m[4] }));
}

/** The rows of `root` and every process below it. */
export function descendants(rows, root) {
  const mine = new Set([root]);
  for (let grew = true; grew;) {
    grew = false;
    for (const r of rows)
      if (!mine.has(r.pid) && mine.has(r.ppid)) {
        mine.add(r.pid);
        grew = true;
      }
  }
  return rows.filter((r) => mine.has(r.pid));
}

/**
 * RSS (KiB) by role, of the processes below this one that serve `port`: `worker` (the workerd
 * that runs the Worker, its Durable Objects and the job sandboxes), `proxy` (wrangler's proxy
 * workerd, which listens on the public port), `wrangler` (wrangler's node processes);
 * `workerd` is worker + proxy. The Worker's workerd is the one started with an inspector address.
 */
export function rssByRole(rows, port) {
  const sum = (f) => rows.filter(f).reduce((s, r) => s + r.rss, 0);
  const isWorkerd = (r) => /workerd/.test(r.args) && / serve /.test(r.args);
  const proxy = sum((r) => isWorkerd(r) && r.args.includes(`entry=127.0.0.1:${port}`));
  const worker = sum((r) => isWorkerd(r) && isWorkerRuntime(r));
  const wrangler = sum((r) => !isWorkerd(r) && /wrangler/.test(r.args) && / dev /.test(r.args));
  return { worker, proxy, workerd: sum(isWorkerd), wrangler };
}

/** `ss -ltnpH` → the loopback TCP ports process `pid` listens on. */
export function listeningPorts(ssOut, pid) {
  return ssOut
    .split('\n')
    .filter((l) => l.includes(`pid=${pid},`))
    .map((l) => /(?:127\.0\.0\.1|\[::1\]|localhost):(\d+)\s/.exec(l)?.[1])
    .filter(Boolean)
    .map(Number);
}

function run(cmd, args) {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '';
  }
}

/** The processes below `root` (this one by default), with their RSS. */
export const myProcesses = (root = process.pid) =>
  descendants(parsePs(run('ps', ['-eo', 'pid=,ppid=,rss=,args='])), root);

/** Whether a process row is the workerd that runs the Worker: the one started with an inspector address. */
export const isWorkerRuntime = (r) => /workerd/.test(r.args) && r.args.includes('--inspector-addr');

/** The DevTools WebSocket URL of the Worker's isolate (`core:user:<name>`), or null. */
async function workerTarget(pid) {
  for (const port of listeningPorts(run('ss', ['-ltnpH']), pid)) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/json/list`, { signal: AbortSignal.timeout(2000) });
      const list = res.ok ? await res.json() : [];
      const t = Array.isArray(list) ? list.find((x) => String(x.id).startsWith('core:user:')) : undefined;
      if (t?.webSocketDebuggerUrl) return t.webSocketDebuggerUrl;
    } catch {
      // not the inspector
    }
  }
  return null;
}

const Socket = globalThis.WebSocket ?? (await import('ws')).WebSocket;

/** One CDP call on a fresh session; rejects after `ms`. */
function cdpCall(url, method, ms = 5000) {
  return new Promise((ok, fail) => {
    const ws = new Socket(url);
    const timer = setTimeout(() => (ws.close(), fail(new Error(`${method}: no answer in ${ms} ms`))), ms);
    ws.addEventListener('open', () => ws.send(JSON.stringify({ id: 1, method })));
    ws.addEventListener('message', (e) => {
      const m = JSON.parse(String(e.data));
      if (m.id !== 1) return;
      clearTimeout(timer);
      ws.close();
      if (m.error) fail(new Error(`${method}: ${m.error.message}`));
      else ok(m.result);
    });
    ws.addEventListener('error', () => (clearTimeout(timer), fail(new Error(`${method}: inspector unreachable`))));
  });
}

/**
 * A sampler of the Worker isolate's heap: `await sample()` → `{ used, total }` in bytes (V8's
 * `usedSize` and `totalSize`), or null when the inspector cannot be reached. The target is looked up
 * again after a failure (the runtime restarted on a new port).
 */
export function isolateHeapSampler() {
  let url = null;
  return async () => {
    const worker = myProcesses().find(isWorkerRuntime);
    if (!worker) return null;
    url ??= await workerTarget(worker.pid);
    if (!url) return null;
    try {
      const { usedSize, totalSize } = await cdpCall(url, 'Runtime.getHeapUsage');
      return { used: usedSize, total: totalSize };
    } catch {
      url = null;
      return null;
    }
  };
}
