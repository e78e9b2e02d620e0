import { describe, expect, it } from 'vitest';
import { rfc2822Utc } from '../../../src/core/dates';

describe('RFC 2822 dates with a literal UTC (client contract)', () => {
  it('formats an ISO instant as the clients print it', () => {
    expect(rfc2822Utc('2024-11-29T09:39:33.512Z')).toBe('Fri, 29 Nov 2024 09:39:33 UTC');
  });
  it('pads the day and keeps a 24-hour clock', () => {
    expect(rfc2822Utc('2025-01-05T23:04:09Z')).toBe('Sun, 05 Jan 2025 23:04:09 UTC');
  });
  it('converts offsets to UTC', () => {
    expect(rfc2822Utc('2024-11-29T10:39:33+01:00')).toBe('Fri, 29 Nov 2024 09:39:33 UTC');
  });
  it('refuses what is not a date', () => {
    expect(() => rfc2822Utc('yesterday')).toThrow(RangeError);
  });
});

describe('RFC 2822 dates: the stored form read without a Date answers what a Date answers', () => {
  const viaDate = (iso: string) => new Date(iso).toUTCString().replace(/ GMT$/, ' UTC');
  it('agrees with Date for instants of the years 1000 to 9999', () => {
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647);
    const from = Date.UTC(1000, 0, 1);
    const to = Date.UTC(9999, 11, 31, 23, 59, 59, 999);
    for (let i = 0; i < 20_000; i++) {
      const iso = new Date(from + (next() / 2147483647) * (to - from)).toISOString();
      expect(rfc2822Utc(iso)).toBe(viaDate(iso));
      expect(rfc2822Utc(`${iso.slice(0, 19)}Z`)).toBe(viaDate(iso));
    }
  });
  it('agrees on leap days, month ends and the edges of the day', () => {
    for (const iso of [
      '2024-02-29T00:00:00Z',
      '2000-02-29T12:00:00.5Z',
      '1970-01-01T00:00:00.000Z',
      '1969-12-31T23:59:59.99Z',
      '1000-01-01T00:00:00Z',
      '9999-12-31T23:59:59.999Z',
      '2023-04-30T23:59:59Z',
    ])
      expect(rfc2822Utc(iso)).toBe(viaDate(iso));
  });
  it('leaves other forms to Date: rollovers, offsets, other fractions', () => {
    for (const iso of [
      '2023-02-30T00:00:00Z', // a Date rolls it over to 2 March
      '1900-02-29T00:00:00Z',
      '2024-01-01T24:00:00Z',
      '2024-01-01T00:00:00.1234Z',
      '2024-01-01T00:00Z',
      '0999-01-01T00:00:00Z',
      '+002024-01-01T00:00:00Z',
      '2024-11-29 09:39:33Z',
    ])
      expect(rfc2822Utc(iso)).toBe(viaDate(iso));
  });
  it('refuses what a Date refuses', () => {
    for (const iso of ['2024-01-01T23:59:60Z', '2024-13-01T00:00:00Z', '2024-00-10T00:00:00Z', '2024-1a-01T00:00:00Z'])
      expect(() => rfc2822Utc(iso)).toThrow(RangeError);
  });
});
