/**
 * Timing synchronous work inside workerd. Workers clocks only move on I/O, so each batch
 * is bracketed by a 1 ms timer (subtracted). On a shared machine the best batch is the
 * work's own cost; the mean over all runs is reported too.
 */
export async function timeInBatches(runs: number, batch: number, work: () => void): Promise<{ best: number; mean: number }> {
  let best = Infinity;
  let total = 0;
  for (let done = 0; done < runs; ) {
    const n = Math.min(batch, runs - done);
    await scheduler.wait(1);
    const t0 = Date.now();
    for (let i = 0; i < n; i++) work();
    await scheduler.wait(1);
    const ms = Math.max(0, Date.now() - t0 - 1);
    best = Math.min(best, ms / n);
    total += ms;
    done += n;
  }
  return { best, mean: total / runs };
}
