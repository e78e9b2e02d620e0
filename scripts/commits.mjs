#!/usr/bin/env node
// The commit rule of CONTRIBUTING.md, checked by `npm run lint` on every commit since the rule
// was written (the commit that added CONTRIBUTING.md): a subject under 72 characters that
// joins no second change with ";", and, but for merges, a body that says why. Outside a git
// checkout (an exported tree) there is nothing to check.
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const MAX_SUBJECT = 72;

/** What breaks the rule in one commit (pure): an empty list when it keeps it. */
export function commitProblems({ subject, body, merge }) {
  const problems = [];
  if (subject.length >= MAX_SUBJECT) problems.push(`subject of ${subject.length} characters (under ${MAX_SUBJECT})`);
  if (/;\s/.test(subject)) problems.push('subject joins changes with ";": one change per commit');
  if (!merge && !body.trim()) problems.push('no body: say why');
  return problems;
}

function git(args) {
  const r = spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  return r.status === 0 ? r.stdout : null;
}

/** The commits since the rule (oldest first): hash, subject, body, whether a merge. */
function commitsSinceRule() {
  const added = git(['log', '--diff-filter=A', '--format=%H', '--', 'CONTRIBUTING.md']);
  if (added === null) return null;
  const first = added.trim().split('\n').filter(Boolean).pop();
  if (!first) return [];
  const out = git(['log', '--reverse', '--format=%H%x00%P%x00%s%x00%b%x1e', `${first}^..HEAD`]);
  if (out === null) return null;
  return out
    .split('\x1e')
    .map((c) => c.replace(/^\n/, ''))
    .filter(Boolean)
    .map((c) => {
      const [hash, parents, subject, body] = c.split('\x00');
      return { hash, subject, body: body ?? '', merge: parents.trim().split(' ').length > 1 };
    });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const commits = commitsSinceRule();
  if (commits === null) {
    console.log('commits: not a git checkout (or no history): nothing to check');
    process.exit(0);
  }
  let bad = 0;
  for (const c of commits) {
    const problems = commitProblems(c);
    if (!problems.length) continue;
    bad++;
    console.log(`${c.hash.slice(0, 7)} ${c.subject}\n  ${problems.join('\n  ')}`);
  }
  console.log(`commits: ${commits.length} since CONTRIBUTING.md, ${bad} breaking its rule`);
  process.exit(bad ? 1 : 0);
}
