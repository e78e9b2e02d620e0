/** Token expiry, idle days and the once-a-day use record: the pure rules of src/core/tokens.ts. */
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOKEN_IDLE_DAYS, expiryOf, tokenIdleDays, useDue } from '../../../src/core/tokens';

const DAY = 86_400_000;
const T0 = Date.parse('2030-03-10T12:00:00.000Z');
const iso = (ms: number) => new Date(ms).toISOString();

describe('expiryOf', () => {
  const made = { created_on: iso(T0), last_used_on: null, expires_on: null };

  it('a token without an expiry lives until it is idle for the idle days', () => {
    expect(expiryOf(made, 180, T0 + 180 * DAY)).toBeNull();
    expect(expiryOf(made, 180, T0 + 180 * DAY + 1)).toMatch(/unused for more than 180 days/);
    expect(expiryOf(made, null, T0 + 1000 * DAY)).toBeNull();
  });

  it('its last use restarts the idle count', () => {
    const used = { ...made, last_used_on: iso(T0 + 100 * DAY) };
    expect(expiryOf(used, 180, T0 + 270 * DAY)).toBeNull();
    expect(expiryOf(used, 180, T0 + 281 * DAY)).toMatch(/last used 2030-/);
  });

  it('an expiry date ends it at that instant, however recently used', () => {
    const dated = { ...made, last_used_on: iso(T0 + DAY), expires_on: iso(T0 + 2 * DAY) };
    expect(expiryOf(dated, 180, T0 + 2 * DAY - 1)).toBeNull();
    expect(expiryOf(dated, 180, T0 + 2 * DAY)).toMatch(/^token expired on 2030-03-12T12:00:00.000Z/);
  });
});

describe('useDue: once a day', () => {
  it('due when never used or last used on an earlier UTC day, not again the same day', () => {
    expect(useDue({ last_used_on: null }, '2030-03-10T00:00:01.000Z')).toBe(true);
    expect(useDue({ last_used_on: '2030-03-10T00:00:01.000Z' }, '2030-03-10T23:59:59.000Z')).toBe(false);
    expect(useDue({ last_used_on: '2030-03-09T23:59:59.000Z' }, '2030-03-10T00:00:00.000Z')).toBe(true);
  });
});

describe('tokenIdleDays (TOKEN_IDLE_DAYS)', () => {
  it(`defaults to ${DEFAULT_TOKEN_IDLE_DAYS}; 0 or off turns it off; a positive whole number sets it`, () => {
    expect(tokenIdleDays({} as Env)).toBe(DEFAULT_TOKEN_IDLE_DAYS);
    expect(tokenIdleDays({ TOKEN_IDLE_DAYS: '30' } as Env)).toBe(30);
    expect(tokenIdleDays({ TOKEN_IDLE_DAYS: '0' } as Env)).toBeNull();
    expect(tokenIdleDays({ TOKEN_IDLE_DAYS: 'off' } as Env)).toBeNull();
    expect(tokenIdleDays({ TOKEN_IDLE_DAYS: '-3' } as Env)).toBe(DEFAULT_TOKEN_IDLE_DAYS);
  });
});
