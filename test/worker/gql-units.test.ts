// Pure rules of the GraphQL API: paging, tags, flags, limits.
import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMIT, enabledFlag, MAX_LIMIT, mentionsIn, page, rfc2822, tagInfo, textOrNull } from '../../src/gql/values';

describe('page: limit and offset', () => {
  it('defaults to the first 100', () => {
    expect(page({})).toEqual({ limit: DEFAULT_LIMIT, offset: 0 });
    expect(page({ limit: null, offset: null })).toEqual({ limit: 100, offset: 0 });
  });
  it('accepts 0..1000 and a non-negative offset', () => {
    expect(page({ limit: 0, offset: 5 })).toEqual({ limit: 0, offset: 5 });
    expect(page({ limit: MAX_LIMIT })).toEqual({ limit: 1000, offset: 0 });
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
    for (const v of [null, 'true', 'yes', 'on', '1', '']) expect(enabledFlag(v)).toBe(true);
  });
  it('is false for the falsy words of decisions.md, in any case and with whitespace', () => {
    for (const v of ['no', 'n', 'nope', 'false', 'f', 'off', '0', 'FALSE', ' no\n']) expect(enabledFlag(v)).toBe(false);
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
});

describe('mentionsIn: @username words of a message', () => {
  it('finds each username once, in order', () => {
    expect(mentionsIn('@ann and @bob_2, again @ann.')).toEqual(['ann', 'bob_2']);
  });
  it('ignores e-mail addresses, group references and paths', () => {
    expect(mentionsIn('mail a@b.com, share @ann~team, see /u/@x and x@y')).toEqual([]);
  });
});
