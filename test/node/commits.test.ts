// The commit rule of CONTRIBUTING.md (scripts/commits.mjs): the shapes of this repository's
// older history fail it, the rule's own shape passes.
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain JavaScript script
import { commitProblems } from '../../scripts/commits.mjs';

describe('one change per commit', () => {
  it('a subject joining changes with ";", too long, without a body fails', () => {
    const old = {
      subject:
        'Add DNS egress checks; run tests with two workers; cap parser inputs at 1 MiB across the grid, chart and mail parsers',
      body: '',
      merge: false,
    };
    expect(commitProblems(old)).toEqual([
      'subject of 117 characters (under 72)',
      'subject joins changes with ";": one change per commit',
      'no body: say why',
    ]);
  });

  it('a short imperative subject with a body passes; a merge needs no body', () => {
    expect(commitProblems({ subject: 'Page stats/runs like every listing', body: 'Why.\n', merge: false })).toEqual([]);
    expect(commitProblems({ subject: "Merge branch 'x'", body: '', merge: true })).toEqual([]);
  });
});
