/**
 * Timing synchronous work inside workerd. Workers clocks only move on I/O, so each batch
 * is bracketed by a 1 ms timer (subtracted). A batch of a few runs gives sub-millisecond
 * resolution; each batch's time per run is one sample.
 */
export interface Timing {
  /** Time per run of each batch, in the order run (ms). */
  samples: number[];
  /** Median of the samples. */
  p50: number;
  best: number;
  /** Total time over all runs. */
  mean: number;
}

/** The q-quantile (0..1) of numbers, nearest rank; 0 for none. */
function quantile(values: number[], q: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export async function timeInBatches(runs: number, batch: number, work: () => void): Promise<Timing> {
  const samples: number[] = [];
  let total = 0;
  for (let done = 0; done < runs;) {
    const n = Math.min(batch, runs - done);
    await scheduler.wait(1);
    const t0 = Date.now();
    for (let i = 0; i < n; i++) work();
    await scheduler.wait(1);
    const ms = Math.max(0, Date.now() - t0 - 1);
    samples.push(ms / n);
    total += ms;
    done += n;
  }
  return { samples, p50: quantile(samples, 0.5), best: Math.min(...samples), mean: total / runs };
}
