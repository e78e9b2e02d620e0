/**
 * Pages (pure): a cursor is opaque but names the last key answered, a listing refuses a
 * cursor of another shape and a limit out of range (400), and keyset paging over items in
 * memory neither repeats nor skips when items are added between pages; a listing in two parts
 * (a history) pages through both, its cursor naming the part.
 */
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../../src/core/errors';
import {
  compareKeys,
  decodeCursor,
  encodeCursor,
  nextLink,
  PAGE_MAX,
  pageItems,
  pageOf,
  pageOfParts,
  pageRequest,
  partsAfter,
  partsPageRequest,
  type KeyPart,
} from '../../../src/core/paging';

const url = (q: string) => new URL(`http://x.test/v1/vis/docs${q}`);
const status = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof HttpError ? e.status : 'not an HttpError';
  }
  return 'no error';
};

describe('cursors', () => {
  it('a cursor reads back the key it was made of, Unicode names included', () => {
    for (const key of [['a'], ['ødegård/ü ✓'], ['2026-11-28T10:00:00.000Z', 42]] as KeyPart[][])
      expect(
        decodeCursor(
          encodeCursor(key),
          key.map((k) => typeof k as 'string' | 'number'),
        ),
      ).toEqual(key);
    expect(encodeCursor(['x'])).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('a cursor of another shape, not base64url, not JSON or too long is a 400', () => {
    expect(status(() => decodeCursor(encodeCursor(['a', 1]), ['string']))).toBe(400);
    expect(status(() => decodeCursor(encodeCursor([1]), ['string']))).toBe(400);
    expect(status(() => decodeCursor(encodeCursor([1.5]), ['number']))).toBe(400);
    expect(status(() => decodeCursor('!!', ['string']))).toBe(400);
    expect(status(() => decodeCursor(btoa('not json'), ['string']))).toBe(400);
    expect(status(() => decodeCursor('A'.repeat(2049), ['string']))).toBe(400);
  });
});

describe('the page a request asks for', () => {
  it('without limit or cursor: the fallback, not paged', () => {
    expect(pageRequest(url(''), ['string'])).toEqual({ limit: PAGE_MAX, after: null, paged: false });
    expect(pageRequest(url(''), ['string'], 30)).toEqual({ limit: 30, after: null, paged: false });
  });

  it('limit from 1 to the maximum; anything else is a 400', () => {
    expect(pageRequest(url('?limit=1'), ['string']).limit).toBe(1);
    expect(pageRequest(url(`?limit=${PAGE_MAX}`), ['string']).limit).toBe(PAGE_MAX);
    for (const bad of ['0', '-1', '1.5', 'ten', '', `${PAGE_MAX + 1}`, '1e3'])
      expect(
        status(() => pageRequest(url(`?limit=${bad}`), ['string'])),
        bad,
      ).toBe(400);
    expect(status(() => pageRequest(url('?limit=501'), ['number'], 50, 500))).toBe(400);
  });
});

describe('keyset pages', () => {
  const items = (names: string[]) => names.map((name) => ({ name }));
  const key = (i: { name: string }) => [i.name];
  const walk = (all: { name: string }[], limit: number, between?: (n: number) => void) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 100; n++) {
      const q: string = `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
      const { items: got, next } = pageItems(all, pageRequest(url(q), ['string']), key);
      seen.push(...got.map((i) => i.name));
      if (!next) return seen;
      cursor = next;
      between?.(n);
    }
    throw new Error('did not end');
  };

  it('unpaged and within the maximum, a listing answers whole in its own order', () => {
    const all = items(['c', 'a', 'b']);
    expect(pageItems(all, pageRequest(url(''), ['string']), key)).toEqual({ items: all, next: null });
  });

  it('paged, items come by name, each once, and the last page has no next', () => {
    expect(walk(items(['e', 'c', 'a', 'd', 'b']), 2)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(walk(items(['a', 'b']), 2)).toEqual(['a', 'b']);
    expect(walk([], 2)).toEqual([]);
  });

  it('items added while paging: none of those already listed repeats, none of the rest is skipped', () => {
    const all = items(['b', 'd', 'f', 'h']);
    const seen = walk(all, 2, (n) => {
      if (n === 0) all.push({ name: 'a' }, { name: 'e' }); // one before the cursor, one after
    });
    expect(seen).toEqual(['b', 'd', 'e', 'f', 'h']);
  });

  it('over the maximum without limit: the first PAGE_MAX by name, and a next page', () => {
    const all = Array.from({ length: PAGE_MAX + 1 }, (_, i) => ({ name: `n${String(i).padStart(5, '0')}` }));
    const first = pageItems(all, pageRequest(url(''), ['string']), key);
    expect(first.items).toHaveLength(PAGE_MAX);
    expect(first.next).toBe(encodeCursor([all[PAGE_MAX - 1]!.name]));
  });

  it('pageOf cuts the extra row read to know more remain', () => {
    const page = pageRequest(url('?limit=2'), ['number']);
    expect(pageOf([{ id: 3 }, { id: 2 }, { id: 1 }], page, (r) => [r.id])).toEqual({
      items: [{ id: 3 }, { id: 2 }],
      next: encodeCursor([2]),
    });
    expect(pageOf([{ id: 3 }, { id: 2 }], page, (r) => [r.id]).next).toBeNull();
  });

  it('the Link header is the request with the next cursor, other parameters kept', () => {
    expect(nextLink(url('?limit=2&cursor=old&x=1'), 'abc')).toEqual({
      Link: '<http://x.test/v1/vis/docs?limit=2&cursor=abc&x=1>; rel="next"',
    });
    expect(nextLink(url(''), null)).toEqual({});
  });
});

describe('listings in two parts (a history: runs, then rolled-up days)', () => {
  const PARTS = [['string', 'number'], ['string']] as const;
  type Run = { at: string; id: number };
  type Day = { day: string };
  /** Reads each part as a database would: its rows after the key partsAfter names, limit + 1 of them. */
  const read = (runs: Run[], days: Day[], q: string) => {
    const page = partsPageRequest(url(q), PARTS);
    const from = partsAfter(page);
    const newestFirst = [...runs].sort((a, b) => compareKeys([b.at, b.id], [a.at, a.id]));
    const after = from.first;
    const r =
      after === 'past'
        ? []
        : newestFirst.filter((x) => !after || compareKeys([x.at, x.id], after) < 0).slice(0, page.limit + 1);
    const d = [...days]
      .sort((a, b) => compareKeys([a.day], [b.day]))
      .filter((x) => !from.second || compareKeys([x.day], from.second) > 0)
      .slice(0, page.limit + 1);
    return pageOfParts(page, r, d, [(x) => [x.at, x.id], (x) => [x.day]]);
  };
  const walk = (runs: Run[], days: Day[], limit: number, between?: (n: number) => void) => {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let n = 0; n < 100; n++) {
      const { first, second, next } = read(runs, days, `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(first.length + second.length).toBeLessThanOrEqual(limit);
      seen.push(...first.map((x) => `${x.at}#${x.id}`), ...second.map((x) => x.day));
      if (!next) return seen;
      cursor = next;
      between?.(n);
    }
    throw new Error('did not end');
  };
  const run = (at: string, id: number): Run => ({ at, id });

  it('the first part, then the second, each item once, across the border of the parts', () => {
    const runs = [run('t3', 3), run('t1', 1), run('t2', 2)];
    const days = [{ day: 'd2' }, { day: 'd1' }];
    for (const limit of [1, 2, 3, 5, 6])
      expect(walk(runs, days, limit), `limit ${limit}`).toEqual(['t3#3', 't2#2', 't1#1', 'd1', 'd2']);
    expect(walk([], days, 1)).toEqual(['d1', 'd2']);
    expect(walk(runs, [], 2)).toEqual(['t3#3', 't2#2', 't1#1']);
    expect(walk([], [], 2)).toEqual([]);
  });

  it('runs added while paging (newer than the cursor) neither repeat nor shift what follows', () => {
    const runs = [run('t1', 1), run('t2', 2), run('t3', 3), run('t4', 4)];
    const days = [{ day: 'd1' }];
    const seen = walk(runs, days, 2, (n) => {
      if (n === 0) runs.push(run('t5', 5), run('t4', 6)); // newer than every run listed: not in this walk
    });
    expect(seen).toEqual(['t4#4', 't3#3', 't2#2', 't1#1', 'd1']);
  });

  it('a cursor names its part: a key of the other part, or no part, is a 400', () => {
    expect(partsAfter(partsPageRequest(url(`?cursor=${encodeCursor([0, 't', 1])}`), PARTS))).toEqual({
      first: ['t', 1],
      second: null,
    });
    expect(partsAfter(partsPageRequest(url(`?cursor=${encodeCursor([1, 'd'])}`), PARTS))).toEqual({
      first: 'past',
      second: ['d'],
    });
    for (const bad of [[0, 'd'], [1, 't', 1], [2, 'd'], ['t', 1], [0]])
      expect(
        status(() => partsPageRequest(url(`?cursor=${encodeCursor(bad)}`), PARTS)),
        JSON.stringify(bad),
      ).toBe(400);
    expect(partsPageRequest(url(''), PARTS)).toEqual({ limit: PAGE_MAX, after: null, paged: false });
  });
});
