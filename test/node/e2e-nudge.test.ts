// The e2e suite's nudge (test/e2e/nudge.ts): a GET parked by wrangler's proxy gets other
// traffic to the same server until it is answered, and nothing else is sent.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { nudged, nudging } from '../e2e/nudge';

describe('the e2e nudge', () => {
  let sent: string[];
  let answer: (r: Response) => void;
  let send: typeof fetch;
  beforeEach(() => {
    vi.useFakeTimers();
    sent = [];
    // The first request waits until the test answers it; every nudge is answered at once.
    send = nudging(
      (input, init) => {
        sent.push(`${init?.method ?? 'GET'} ${String(input)}`);
        return sent.length === 1
          ? new Promise<Response>((ok) => (answer = ok))
          : Promise.resolve(new Response('not found', { status: 404 }));
      },
      () => {},
    );
  });
  afterEach(() => vi.useRealTimers());

  it('a GET unanswered for 10 s sends the same server a GET every 5 s until it is answered', async () => {
    const waiting = send('http://127.0.0.1:8787/v1/vis/docs/a/content');
    await vi.advanceTimersByTimeAsync(9_999);
    expect(sent).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toEqual(['GET http://127.0.0.1:8787/v1/vis/docs/a/content', 'GET http://127.0.0.1:8787/v1/e2e-nudge']);
    await vi.advanceTimersByTimeAsync(5_000);
    expect(sent).toHaveLength(3);
    answer(new Response('ok'));
    expect(await (await waiting).text()).toBe('ok');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent).toHaveLength(3);
  });

  it('a GET answered in time sends nothing more', async () => {
    const waiting = send('http://[::1]:8787/v1/whoami', { method: 'HEAD' });
    await vi.advanceTimersByTimeAsync(5_000);
    answer(new Response(null));
    await waiting;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent).toHaveLength(1);
  });

  it('a POST is never nudged (the proxy parks only a GET or HEAD)', async () => {
    void send('http://127.0.0.1:8787/v1/token', { method: 'POST' });
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent).toHaveLength(1);
  });

  it('a GET off loopback is never nudged (the suite sends nothing elsewhere; nothing is sent here)', async () => {
    void send('http://192.0.2.1/v1/whoami');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(sent).toHaveLength(1);
  });

  it('a HEAD sent another way (node:http) is nudged the same way, through fetch', async () => {
    const calls: string[] = [];
    vi.stubGlobal('fetch', (input: string) => {
      calls.push(input);
      return Promise.resolve(new Response(null, { status: 404 }));
    });
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      let done: (v: string) => void = () => {};
      const waiting = nudged(new Promise<string>((ok) => (done = ok)), 'head', 'http://127.0.0.1:8787/v1/whoami');
      await vi.advanceTimersByTimeAsync(15_000);
      expect(calls).toEqual(['http://127.0.0.1:8787/v1/e2e-nudge', 'http://127.0.0.1:8787/v1/e2e-nudge']);
      done('answered');
      expect(await waiting).toBe('answered');
      await vi.advanceTimersByTimeAsync(60_000);
      expect(calls).toHaveLength(2);
    } finally {
      vi.unstubAllGlobals();
      vi.restoreAllMocks();
    }
  });
});
