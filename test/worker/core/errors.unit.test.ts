/** An error nobody expected: a generic 500 whose body and log line name the request. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { toErrorResponse } from '../../../src/core/errors';
import { withRequestId } from '../../../src/core/request-id';

afterEach(() => vi.restoreAllMocks());

describe('the log line of a failed request names it', () => {
  it('a thrown Error is a 500 internal_error with the request id, logged with it', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const res = withRequestId('req-123', () => toErrorResponse(new Error('boom')));
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      status: 500,
      message: 'internal error',
      code: 'internal_error',
      request_id: 'req-123',
    });
    expect(String(logged.mock.calls[0]?.[0])).toContain('req-123');
  });
});
