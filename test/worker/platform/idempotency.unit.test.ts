/**
 * Idempotency-Key, the pure parts (core/idempotency.ts): which keys are valid, which answers are kept, the request
 * fingerprint (keyed: the same body under another key or account gives another one) and the sealed answer (only the
 * raw key opens it, and only for its own row).
 */
import { describe, expect, it } from 'vitest';
import {
  decodeAnswer,
  encodeAnswer,
  idempotencyKeyOf,
  keepsAnswer,
  keyMaterial,
  openAnswer,
  requestHash,
  sealAnswer,
  type KeptAnswer,
} from '../../../src/core/idempotency';
import { HttpError } from '../../../src/core/errors';

const withKey = (key?: string) =>
  new Request('http://x/', { method: 'POST', headers: key === undefined ? {} : { 'Idempotency-Key': key } });
const bytes = (s: string) => new Uint8Array(new TextEncoder().encode(s));

describe('an Idempotency-Key is 1 to 255 printable ASCII characters', () => {
  it('none is null; a UUID, 255 characters and inner spaces are keys', () => {
    expect(idempotencyKeyOf(withKey())).toBeNull();
    const uuid = crypto.randomUUID();
    expect(idempotencyKeyOf(withKey(uuid))).toBe(uuid);
    expect(idempotencyKeyOf(withKey('k'.repeat(255)))).toBe('k'.repeat(255));
    expect(idempotencyKeyOf(withKey('a b~!'))).toBe('a b~!');
  });
  it('empty, 256 characters, a tab or a byte past ASCII is 400', () => {
    for (const key of ['', 'k'.repeat(256), 'a\tb', 'caf\u00e9']) {
      const err = (() => {
        try {
          idempotencyKeyOf(withKey(key));
        } catch (e) {
          return e;
        }
      })();
      expect(err, JSON.stringify(key)).toBeInstanceOf(HttpError);
      expect((err as HttpError).status).toBe(400);
    }
  });
});

describe('which answers are kept', () => {
  it('2xx and 4xx are kept; 5xx, 425 and 429 (retry later) are not', () => {
    for (const s of [200, 201, 202, 204, 400, 401, 403, 404, 409, 413]) expect(keepsAnswer(s), String(s)).toBe(true);
    for (const s of [425, 429, 500, 502, 503, 504]) expect(keepsAnswer(s), String(s)).toBe(false);
  });
});

describe('the request fingerprint is an HMAC under the raw key', () => {
  it('the same body and key give the same; another body, key or account another', async () => {
    const m = await keyMaterial('key-1', 7);
    const h = await requestHash(m, bytes('{"a":1}'));
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(await requestHash(await keyMaterial('key-1', 7), bytes('{"a":1}'))).toBe(h);
    expect(await requestHash(m, bytes('{"a":2}'))).not.toBe(h);
    expect(await requestHash(await keyMaterial('key-2', 7), bytes('{"a":1}'))).not.toBe(h);
    expect(await requestHash(await keyMaterial('key-1', 8), bytes('{"a":1}'))).not.toBe(h);
  });
  it('the stored id of a key is its SHA-256, whatever the account', async () => {
    const a = await keyMaterial('key-1', 7);
    expect(a.hash).toBe((await keyMaterial('key-1', 9)).hash);
    expect(a.hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('a kept answer', () => {
  const answer: KeptAnswer = {
    status: 202,
    headers: [
      ['content-type', 'application/json'],
      ['x-run-id', '20260101-000000-abc'],
    ],
    body: bytes('{"token":"secret-token-value"}'),
    size: 30,
  };

  it('encodes and decodes whole, with or without its body', () => {
    expect(decodeAnswer(encodeAnswer(answer))).toEqual(answer);
    const notKept = { ...answer, body: null, size: 100_000 };
    expect(decodeAnswer(encodeAnswer(notKept))).toEqual(notKept);
  });

  it('is sealed: the secret is not in what is stored; only the same key and row open it', async () => {
    const m = await keyMaterial('key-1', 7);
    const sealed = await sealAnswer(m, '7:abc', answer);
    expect(atob(sealed)).not.toContain('secret-token-value');
    expect(sealed).not.toContain('secret-token-value');
    expect(await openAnswer(await keyMaterial('key-1', 7), '7:abc', sealed)).toEqual(answer);
    await expect(openAnswer(await keyMaterial('key-2', 7), '7:abc', sealed)).rejects.toThrow();
    await expect(openAnswer(m, '8:abc', sealed)).rejects.toThrow();
  });
});
