// Pure rules of the GraphQL API: paging, tags, flags, limits.
import { describe, expect, it } from 'vitest';
import { yesNo } from '../../../src/core/yes-no';
import {
  DEFAULT_LIMIT,
  MAX_LIMIT,
  mentionsIn,
  page,
  rfc2822,
  slicePage,
  tagInfo,
  textOrNull,
} from '../../../src/gql/values';
import { commentTree } from '../../../src/gql/topics';
import { rfc2822Utc } from '../../../src/core/dates';

describe('page: limit, offset and after', () => {
  it('defaults to the first 100', () => {
    expect(page({})).toEqual({ limit: DEFAULT_LIMIT, offset: 0, after: null });
    expect(page({ limit: null, offset: null, after: null })).toEqual({ limit: 100, offset: 0, after: null });
  });
  it('accepts 0..1000, a non-negative offset and the id to page after', () => {
    expect(page({ limit: 0, offset: 5 })).toEqual({ limit: 0, offset: 5, after: null });
    expect(page({ limit: MAX_LIMIT, after: 'report' })).toEqual({ limit: 1000, offset: 0, after: 'report' });
  });
  it('a list read whole is sliced: all of it (up to 1000) without arguments', () => {
    const items = Array.from({ length: 1001 }, (_, i) => i);
    expect(slicePage(items, {})).toHaveLength(MAX_LIMIT);
    expect(slicePage(items, { limit: 2, offset: 3 })).toEqual([3, 4]);
    expect(() => slicePage(items, { offset: -1 })).toThrowError(
      expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT' } }),
    );
  });
  it.each([{ limit: 1001 }, { limit: -1 }, { offset: -1 }])('rejects %j with BAD_USER_INPUT', (args) => {
    expect(() => page(args)).toThrowError(expect.objectContaining({ extensions: { code: 'BAD_USER_INPUT' } }));
  });
});

describe('tags: id as written, bare name, kind', () => {
  it.each([
    ['fav', { id: 'fav', name: 'fav', type: 'system' }],
    ['archived', { id: 'archived', name: 'archived', type: 'system' }],
    ['+mine', { id: '+mine', name: 'mine', type: 'user' }],
    ['=finance', { id: '=finance', name: 'finance', type: 'category' }],
  ])('%s', (tag, info) => expect(tagInfo(tag)).toEqual(info));
});

describe('config/enabled', () => {
  it('is true when unset or truthy', () => {
    for (const v of [null, 'true', 'yes', 'on', '1', '']) expect(yesNo(v, true)).toBe(true);
  });
  it('is false for the falsy words (no, n, nope, false, f, off, 0), in any case and with whitespace', () => {
    for (const v of ['no', 'n', 'nope', 'false', 'f', 'off', '0', 'FALSE', ' no\n']) expect(yesNo(v, true)).toBe(false);
  });
});

describe('optional text', () => {
  it('empty and unset read as null', () => {
    expect(textOrNull('')).toBeNull();
    expect(textOrNull(null)).toBeNull();
    expect(textOrNull('*/5 * * * *')).toBe('*/5 * * * *');
  });
});

describe('rfc2822: dates as the client contract prints them', () => {
  it('is RFC 2822 with a literal UTC', () => {
    expect(rfc2822('2024-11-29T09:39:33.123Z')).toBe('Fri, 29 Nov 2024 09:39:33 UTC');
    expect(rfc2822('2024-11-29T10:39:33+01:00')).toBe('Fri, 29 Nov 2024 09:39:33 UTC');
  });
  it('is null for nothing or an unparsable value', () => {
    expect(rfc2822(null)).toBeNull();
    expect(rfc2822('')).toBeNull();
    expect(rfc2822('yesterday')).toBeNull();
  });
  it('is the core formatter (src/core/dates.ts) for every date', () => {
    for (const iso of ['2024-11-29T09:39:33.123Z', '2024-02-29T23:59:59Z', '1999-01-01T00:00:00.000Z'])
      expect(rfc2822(iso)).toBe(rfc2822Utc(iso));
  });
});

describe('mentionsIn: @username words of a message', () => {
  it('finds each username once, in order', () => {
    expect(mentionsIn('@ann and @bob_2, again @ann.')).toEqual(['ann', 'bob_2']);
  });
  it('ignores e-mail addresses, group references and paths', () => {
    expect(mentionsIn('mail a@b.com, share @ann~team, see /u/@x and x@y')).toEqual([]);
  });
});

describe('commentTree: replies nest under the comment they answer (thread_comments.parent_id)', () => {
  const row = (id: number, parent_id: number | null) => ({
    id,
    parent_id,
    text: `c${id}`,
    author: 'ann',
    created_on: '2024-11-29T09:39:33.000Z',
  });
  it('top level without a parent; depth +1 per level; replies oldest first; all in id order', () => {
    const { comments, all } = commentTree([row(1, null), row(2, 1), row(3, null), row(4, 2), row(5, 1)]);
    expect(comments.map((c) => c.id)).toEqual([1, 3]);
    expect(comments[0]!.replies.map((c) => [c.id, c.depth])).toEqual([
      [2, 1],
      [5, 1],
    ]);
    expect(comments[0]!.replies[0]!.replies.map((c) => [c.id, c.depth])).toEqual([[4, 2]]);
    expect(all.map((c) => c.id)).toEqual([1, 2, 3, 4, 5]);
  });
  it('a comment whose parent is not in the thread shows on the topic rather than being lost', () => {
    expect(commentTree([row(7, 3), row(8, 7)]).comments.map((c) => [c.id, c.depth, c.replies.length])).toEqual([
      [7, 0, 1],
    ]);
  });
});
