// When a final run's object leaves memory (src/jobs/run/release.ts), and the stub's second try
// of a call that the release cut (src/jobs/run/stub.ts).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IdleRelease, RELEASED, RELEASE_IDLE_MS } from '../../../src/jobs/run/release';
import { againIfReleased } from '../../../src/jobs/run/stub';

describe('the idle release of a final run object', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const make = (idle = () => true) => {
    const released = vi.fn();
    return { release: new IdleRelease(idle, released), released };
  };

  it('an idle object is released RELEASE_IDLE_MS after its last touch, not before', () => {
    const { release, released } = make();
    release.touch();
    vi.advanceTimersByTime(RELEASE_IDLE_MS - 1);
    release.touch(); // a call: the idle period starts again
    vi.advanceTimersByTime(RELEASE_IDLE_MS - 1);
    expect(released).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(released).toHaveBeenCalledTimes(1);
  });

  it('an object that is not idle (running, followed) is never released', () => {
    const { release, released } = make(() => false);
    release.touch();
    vi.advanceTimersByTime(10 * RELEASE_IDLE_MS);
    expect(released).not.toHaveBeenCalled();
  });

  it('an async call holds the release off however long it takes, then the idle period starts', async () => {
    const { release, released } = make();
    release.touch();
    let finish!: () => void;
    const call = release.during(() => new Promise<void>((resolve) => (finish = resolve)));
    vi.advanceTimersByTime(3 * RELEASE_IDLE_MS);
    expect(released).not.toHaveBeenCalled();
    finish();
    await call;
    vi.advanceTimersByTime(RELEASE_IDLE_MS - 1);
    expect(released).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(released).toHaveBeenCalledTimes(1);
  });

  it('a call that fails still ends its hold', async () => {
    const { release, released } = make();
    await expect(release.during(() => Promise.reject(new Error('no')))).rejects.toThrow('no');
    vi.advanceTimersByTime(RELEASE_IDLE_MS);
    expect(released).toHaveBeenCalledTimes(1);
  });
});

describe("the run stub's second try", () => {
  it('a call cut by the release is made once more and answers the second answer', async () => {
    let calls = 0;
    const stub = againIfReleased(() => ({
      status: async () => {
        calls++;
        if (calls === 1) throw new Error(`Error: ${RELEASED}`);
        return 'success';
      },
    }));
    expect(await stub.status()).toBe('success');
    expect(calls).toBe(2);
  });

  it('the second try is made on a new stub: a stub whose object broke off stays broken', async () => {
    const opened: { broken: boolean }[] = [];
    const stub = againIfReleased(() => {
      const s = {
        broken: opened.length === 0,
        async getStatus() {
          if (s.broken) throw new Error(RELEASED);
          return 'success';
        },
      };
      opened.push(s);
      return s;
    });
    expect(await stub.getStatus()).toBe('success');
    expect(opened.length).toBe(2);
  });

  it('any other failure is not retried', async () => {
    let calls = 0;
    const stub = againIfReleased(() => ({
      forget: async () => {
        calls++;
        throw new Error('D1_ERROR: busy');
      },
    }));
    await expect(stub.forget()).rejects.toThrow('D1_ERROR');
    expect(calls).toBe(1);
  });

  it('a second release in a row is not retried again', async () => {
    let calls = 0;
    const stub = againIfReleased(() => ({
      output: async () => {
        calls++;
        throw new Error(RELEASED);
      },
    }));
    await expect(stub.output()).rejects.toThrow(RELEASED);
    expect(calls).toBe(2);
  });

  it('properties that are not methods pass through', () => {
    const id = { name: 'x' };
    expect(againIfReleased(() => ({ id })).id).toBe(id);
  });
});
