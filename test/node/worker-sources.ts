// The Worker's own TypeScript (src/ and durable/), as paths from the repository's root: what
// the house rules read (file-size.test.ts, d1-session-rule.test.ts).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** Every .ts file under src/ and durable/ with its text. */
export function workerSources(): { path: string; text: string }[] {
  return [...sources(join(root, 'src')), ...sources(join(root, 'durable'))].map((f) => ({
    path: relative(root, f),
    text: readFileSync(f, 'utf8'),
  }));
}
