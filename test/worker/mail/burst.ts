/**
 * The invariant of a burst of concurrent sends of one e-mail, shared by the workerd and the
 * end-to-end suites: sends are never in flight together. A burst that lands within one
 * delivery gives exactly one 202 and 425 for the rest; on a machine where delivery ends
 * while the burst is still arriving, a later request may be accepted, but only after the
 * run before it has ended. (Pure: codes and stats/runs rows in, problems out.)
 */
export interface BurstRun {
  timestamp: string;
  /** Seconds, to the hundredth. */
  duration: number;
  delivered: number;
}

export function burstProblems(codes: number[], runs: BurstRun[], recipients: number): string[] {
  const problems: string[] = [];
  const accepted = codes.filter((c) => c === 202).length;
  const other = codes.filter((c) => c !== 202 && c !== 425);
  if (other.length) problems.push(`answers other than 202 and 425: ${other.join(', ')}`);
  if (!accepted) problems.push('no send was accepted');
  if (accepted === codes.length) problems.push('no request was held by the in-flight lock (425)');
  if (runs.length !== accepted) problems.push(`${accepted} x 202 but ${runs.length} stats/runs rows`);
  const byStart = [...runs].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  for (let i = 1; i < byStart.length; i++) {
    const prev = byStart[i - 1]!;
    const ended = Date.parse(prev.timestamp) + prev.duration * 1000 - 10; // duration is rounded to 10 ms
    if (Date.parse(byStart[i]!.timestamp) < ended)
      problems.push(`send accepted at ${byStart[i]!.timestamp} while the one of ${prev.timestamp} was in flight`);
  }
  for (const r of runs)
    if (r.delivered !== recipients) problems.push(`run of ${r.timestamp} delivered ${r.delivered} of ${recipients}`);
  return problems;
}
