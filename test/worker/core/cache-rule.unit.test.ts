/**
 * The caching rule of every answer (pure): errors are never stored, an answer to a request
 * with a token is never `public`, and an answer without a rule of its own is `no-store`
 * (never left to a cache's heuristics).
 */
import { describe, expect, it } from 'vitest';
import { BUILD_TIME, cacheRule } from '../../../src/core/cache-rule';

const anonymous = new Request('http://x.test/v1/openapi.json');
const withToken = new Request('http://x.test/v1/vis/docs', { headers: { Authorization: 'Bearer t' } });

describe('Cache-Control on every answer', () => {
  it('an error is no-store, whatever the route said and whoever asked', () => {
    for (const status of [400, 401, 403, 404, 409, 429, 500, 503]) {
      expect(cacheRule(anonymous, status, null)).toBe('no-store');
      expect(cacheRule(withToken, status, BUILD_TIME)).toBe('no-store');
    }
  });

  it('an answer to a request with a token is private: no-store without a rule, public made private', () => {
    expect(cacheRule(withToken, 200, null)).toBe('private, no-store');
    expect(cacheRule(withToken, 200, 'public, max-age=31536000, immutable')).toBe(
      'private, max-age=31536000, immutable',
    );
    expect(cacheRule(withToken, 200, 'no-cache')).toBe('private, no-cache');
    expect(cacheRule(withToken, 304, 'private, no-cache')).toBe('private, no-cache');
    expect(cacheRule(withToken, 200, 'no-store')).toBe('no-store');
  });

  it("an anonymous answer keeps the route's rule, and is no-store without one", () => {
    expect(cacheRule(anonymous, 200, BUILD_TIME)).toBe(BUILD_TIME);
    expect(cacheRule(anonymous, 200, 'private, no-cache')).toBe('private, no-cache');
    expect(cacheRule(anonymous, 200, null)).toBe('no-store');
    expect(cacheRule(anonymous, 204, null)).toBe('no-store');
  });
});
