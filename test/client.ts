/**
 * The request client both suites share: the workerd suite hands it the Worker's own fetch,
 * the e2e suite Node's fetch against the running server. Only the transport differs.
 */

let seq = 0;
/** A name no other test uses (tests share one database). */
export function unique(prefix = 'u'): string {
  return `${prefix}${Date.now().toString(36)}${(seq++).toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`.slice(
    0,
    60,
  );
}

/**
 * An answer's text without its request id (every error body names its own request): what
 * two answers must share when a test checks that they tell a caller the same.
 */
export const withoutRequestId = (text: string): string => text.replace(/,"request_id":"[^"]*"/g, '');

export interface CallOptions {
  token?: string | null;
  text?: string;
  json?: unknown;
  body?: BodyInit;
  type?: string;
  headers?: Record<string, string>;
}

export interface TestUser {
  username: string;
  password: string;
  token: string;
}

export type Call = (method: string, path: string, o?: CallOptions) => Promise<Response>;

/**
 * `call(method, path, options)` over a fetch-like `send`, for paths under `base()` (read per call: e2e learns it late).
 */
export function requester(send: (url: string, init: RequestInit) => Promise<Response>, base: () => string): Call {
  return async (method, path, o = {}) => {
    const headers = new Headers(o.headers);
    if (o.token) headers.set('Authorization', `Bearer ${o.token}`);
    let body: BodyInit | undefined = o.body;
    if (o.text !== undefined) {
      body = o.text;
      headers.set('Content-Type', o.type ?? 'text/plain');
    } else if (o.json !== undefined) {
      body = JSON.stringify(o.json);
      headers.set('Content-Type', o.type ?? 'application/json');
    } else if (o.type) headers.set('Content-Type', o.type);
    return send(base() + path, { method, headers, body });
  };
}

/** Creates a user through the operator interface and signs in through POST /v1/token. */
export async function createUser(
  call: Call,
  ops: string,
  fields: Record<string, unknown>,
  prefix: string,
): Promise<TestUser> {
  const username = unique(prefix);
  const password = `pw-${username}`;
  const created = await call('PUT', `/v1/ops/users/${username}`, { token: ops, json: { password, ...fields } });
  if (created.status !== 201) throw new Error(`ops user create: ${created.status} ${await created.text()}`);
  const res = await call('POST', '/v1/token', { json: { username, password } });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  const { token } = (await res.json()) as { token: string };
  return { username, password, token };
}

/** Polls `probe` until it answers something truthy (which it returns); throws naming `what` after `ms`. */
export async function until<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  ms = 20_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
