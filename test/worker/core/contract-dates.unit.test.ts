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
