// D1 through the request's session (docs/ARCHITECTURE.md, "D1 sessions"): a statement a
// request runs on `env.DB` itself is not counted in Server-Timing and does not move the
// answer's x-d1-bookmark, so a client reading back with that bookmark may miss the write on
// a replica. Only work outside requests may use the binding directly: the retention sweep.
import { describe, expect, it } from 'vitest';
import { workerSources } from './worker-sources';

/** Where statements run on the binding itself, and why that is right there. */
const ALLOWED: Record<string, string> = {
  'src/accounts/retention.ts': 'the scheduled() sweep: no request, no reader with a bookmark',
};

describe('the D1 session rule', () => {
  it('no statement runs on env.DB itself outside the files allowed to', () => {
    const direct = workerSources()
      .filter(({ text }) => /\.DB\.(prepare|batch|exec|dump)\(/.test(text))
      .map(({ path }) => path);
    expect(direct.filter((f) => !(f in ALLOWED))).toEqual([]);
  });
});
