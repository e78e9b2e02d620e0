/** Test helpers: requests go through the real Worker (exports.default.fetch) in workerd. */
import { exports } from 'cloudflare:workers';
import { createUser, requester, type TestUser } from '../client';

export { unique, withoutRequestId, type CallOptions, type TestUser } from '../client';

export const OPS = 'test-ops-token';
const BASE = 'http://platform.test';

const worker = () => (exports as unknown as { default: Fetcher }).default;
const send = async (url: string, init: RequestInit) => worker().fetch(new Request(url, init));
export const call = requester(send, () => BASE);

/** Creates a user through the operator interface and signs in through POST /v1/token. */
export function makeUser(fields: Record<string, unknown> = {}, prefix = 'u'): Promise<TestUser> {
  return createUser(call, OPS, fields, prefix);
}
