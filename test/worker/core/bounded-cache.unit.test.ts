/**
 * The bound of every cache an isolate keeps between requests (pure): entries and weight
 * never pass their caps, and the least recently used entry leaves first.
 */
import { describe, expect, it } from 'vitest';
import { BoundedCache } from '../../../src/core/bounded-cache';

describe('BoundedCache', () => {
  it('keeps at most maxEntries, dropping the least recently used', () => {
    const c = new BoundedCache<string, number>({ maxEntries: 3 });
    for (const [i, k] of ['a', 'b', 'c'].entries()) c.set(k, i);
    expect(c.get('a')).toBe(0); // a is now the most recent: b is the oldest
    c.set('d', 3);
    expect(c.size).toBe(3);
    expect(c.get('b')).toBeUndefined();
    expect([c.get('a'), c.get('c'), c.get('d')]).toEqual([0, 2, 3]);
  });

  it('never grows past its cap however many keys pass through it', () => {
    const c = new BoundedCache<number, string>({ maxEntries: 100 });
    for (let i = 0; i < 100_000; i++) c.set(i, 'x');
    expect(c.size).toBe(100);
    expect(c.get(99_999)).toBe('x');
    expect(c.get(99_899)).toBeUndefined();
  });

  it('keeps the summed weight under maxWeight, and replaces a key without counting it twice', () => {
    const c = new BoundedCache<string, string>({ maxEntries: 1000, maxWeight: 10, weigh: (v) => v.length });
    c.set('a', 'xxxx');
    c.set('a', 'xxxx');
    expect(c.weight).toBe(4);
    c.set('b', 'xxxx');
    c.set('c', 'xxxx');
    expect(c.weight).toBe(8);
    expect(c.get('a')).toBeUndefined();
    expect(c.size).toBe(2);
  });

  it('drops an entry heavier than maxWeight at once', () => {
    const c = new BoundedCache<string, string>({ maxEntries: 10, maxWeight: 3, weigh: (v) => v.length });
    c.set('big', 'xxxx');
    expect(c.size).toBe(0);
    expect(c.weight).toBe(0);
  });

  it('delete and deleteWhere give back their weight', () => {
    const c = new BoundedCache<string, number>({ maxEntries: 10, maxWeight: 100, weigh: (v) => v });
    c.set('a', 1);
    c.set('b', 2);
    c.set('c', 3);
    c.delete('a');
    c.delete('missing');
    c.deleteWhere((v) => v === 3);
    expect(c.size).toBe(1);
    expect(c.weight).toBe(2);
    expect(c.get('b')).toBe(2);
  });
});
