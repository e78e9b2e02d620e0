// The alarm a wake or a pass sets, the retry schedule, Retry-After and the 5-day rule (pure), and the signature
// against the reference verifier's.
import { describe, expect, it } from 'vitest';
import {
  alarmBy,
  DISABLE_AFTER_MS,
  failedTooLong,
  MAX_RETRY_AFTER_MS,
  nextRetryDelay,
  retryAfterMs,
} from '../../../src/webhooks/schedule';
import { newSecret, signature } from '../../../src/webhooks/sign';

describe('alarm', () => {
  it('an alarm is set to ring by the time asked unless one armed rings by then already', () => {
    expect(alarmBy(null, 1000)).toBe(1000);
    expect(alarmBy(5000, 1000)).toBe(1000);
    expect(alarmBy(1000, 1000)).toBeNull();
    expect(alarmBy(400, 1000)).toBeNull();
  });
});

describe('retry schedule', () => {
  it('retries after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then none (exhausted)', () => {
    const s = 1000;
    expect([1, 2, 3, 4, 5, 6, 7, 8].map((n) => nextRetryDelay(n))).toEqual([
      5 * s,
      300 * s,
      1800 * s,
      7200 * s,
      18000 * s,
      36000 * s,
      36000 * s,
      null,
    ]);
  });

  it('Retry-After: a longer wait is honoured (up to 10 h), a shorter one never hurries a retry', () => {
    expect(nextRetryDelay(1, 3600_000)).toBe(3600_000);
    expect(nextRetryDelay(2, 1000)).toBe(300_000);
    expect(nextRetryDelay(1, 10 * 24 * 3600_000)).toBe(MAX_RETRY_AFTER_MS);
    expect(nextRetryDelay(8, 1000)).toBeNull();
    const at = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('120', at)).toBe(120_000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:01:00 GMT', at)).toBe(60_000);
    expect(retryAfterMs('soon', at)).toBeNull();
    expect(retryAfterMs(null, at)).toBeNull();
  });

  it('a failure streak disables at 5 days, not before', () => {
    const start = '2026-01-01T00:00:00.000Z';
    expect(failedTooLong(start, Date.parse(start) + DISABLE_AFTER_MS - 1)).toBe(false);
    expect(failedTooLong(start, Date.parse(start) + DISABLE_AFTER_MS)).toBe(true);
    expect(failedTooLong(null, Date.now())).toBe(false);
  });
});

describe('signature', () => {
  it('is the Standard Webhooks v1 HMAC-SHA256 of id.timestamp.body under the decoded secret', async () => {
    // The specification's example: whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw, msg_p5jXN8AQM9LWM0D4loKWxJek, 1614265330.
    const sig = await signature(
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'msg_p5jXN8AQM9LWM0D4loKWxJek',
      1614265330,
      '{"test": 2432232314}',
    );
    expect(sig).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
    expect(newSecret()).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  });
});
