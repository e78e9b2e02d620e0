// D1 through the request's session (docs/ARCHITECTURE.md, "D1 sessions"): a statement a
// request runs on `env.DB` itself is not counted in Server-Timing and does not move the
// answer's x-d1-bookmark, so a client reading back with that bookmark may miss the write on
// a replica. Only work outside requests may use the binding directly: the retention sweep.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..');
/** Where statements run on the binding itself, and why that is right there. */
const ALLOWED: Record<string, string> = {
  'src/accounts/retention.ts': 'the scheduled() sweep: no request, no reader with a bookmark',
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('the D1 session rule', () => {
  it('no statement runs on env.DB itself outside the files allowed to', () => {
    const direct = [...sources(join(root, 'src')), ...sources(join(root, 'durable'))]
      .map((f) => relative(root, f))
      .filter((f) => /\.DB\.(prepare|batch|exec|dump)\(/.test(readFileSync(join(root, f), 'utf8')));
    expect(direct.filter((f) => !(f in ALLOWED))).toEqual([]);
  });
});
