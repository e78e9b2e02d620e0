/** HTTP helpers for the end-to-end suites (Node fetch against the running server). */
import { inject } from 'vitest';

export const base = () => inject('base');
export const opsToken = () => inject('ops');

let seq = 0;
export function unique(prefix = 'e'): string {
  return `${prefix}${Date.now().toString(36)}${(seq++).toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`.slice(0, 60);
}

export interface CallOptions {
  token?: string | null;
  text?: string;
  json?: unknown;
  body?: BodyInit;
  type?: string;
  headers?: Record<string, string>;
}

export async function http(method: string, path: string, o: CallOptions = {}): Promise<Response> {
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
  return fetch(base() + path, { method, headers, body });
}

export interface E2EUser {
  username: string;
  password: string;
  token: string;
}

export async function makeUser(fields: Record<string, unknown> = {}, prefix = 'e'): Promise<E2EUser> {
  const username = unique(prefix);
  const password = `pw-${username}`;
  const created = await http('PUT', `/v1/ops/users/${username}`, { token: opsToken(), json: { password, ...fields } });
  if (created.status !== 201) throw new Error(`ops user create: ${created.status} ${await created.text()}`);
  const res = await http('POST', '/v1/token', { json: { username, password } });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${await res.text()}`);
  const { token } = (await res.json()) as { token: string };
  return { username, password, token };
}
