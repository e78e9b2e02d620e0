import { describe, expect, it } from 'vitest';
import { lockedForSeconds, SIGNIN_MAX_FAILURES, SIGNIN_WINDOW_MS } from '../../../src/accounts/signin-throttle';

describe('lockedForSeconds', () => {
  const start = 1_000_000;
  it('no row, or fewer failures than the cap: not locked', () => {
    expect(lockedForSeconds(undefined, start)).toBe(0);
    expect(lockedForSeconds({ window_start: start, failures: SIGNIN_MAX_FAILURES - 1 }, start)).toBe(0);
  });
  it('at the cap: locked until the window that began at the first failure ends, rounded up to a second', () => {
    const row = { window_start: start, failures: SIGNIN_MAX_FAILURES };
    expect(lockedForSeconds(row, start)).toBe(SIGNIN_WINDOW_MS / 1000);
    expect(lockedForSeconds(row, start + SIGNIN_WINDOW_MS - 1)).toBe(1);
    expect(lockedForSeconds(row, start + SIGNIN_WINDOW_MS)).toBe(0);
  });
});
