// The CPU time of the workerd that runs a server's Worker (the process below it started with an
// inspector address: not wrangler's proxy), from /proc (Linux). Locally one thread of that
// process runs the Worker, its Durable Objects and local D1 together, so what a piece of work
// costs it bounds how much of it fits beside other work, whatever the wall clock did meanwhile.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { isWorkerRuntime, myProcesses } from '../scripts/soak-probe.mjs';

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** A reader of the CPU milliseconds (user + system) the Worker's workerd under `rootPid` has used; null when not found. */
export function workerCpu(rootPid) {
  let pid = null;
  return () => {
    pid ??= myProcesses(rootPid).find(isWorkerRuntime)?.pid ?? null;
    if (pid === null) return null;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1000;
    } catch {
      pid = null;
      return null;
    }
  };
}
