/** A run's Durable Object by its name: the RunObject (durable/run.ts) that owns the run's state and log. */

/** The Durable Object of the run `name` (typed by the RUNS binding: src/ never imports durable/). */
export function runStub(env: Env, name: string) {
  return env.RUNS.get(env.RUNS.idFromName(name));
}
