/**
 * When a final run's object leaves memory: once it has been idle for RELEASE_IDLE_MS with no
 * call in progress. Its storage and retention alarm stay; the next call or the alarm builds
 * it again from storage. Local workerd keeps every object with a pending alarm in memory
 * until the alarm fires, so without this each run stayed loaded for its 30 days of retention.
 *
 * Releasing is `ctx.abort`, which also fails every call the object has not finished: so an
 * async call holds the release off while it runs (`during`), and a call that arrives just as
 * the object releases itself fails with RELEASED without having run (the stub makes it
 * again: stub.ts).
 */
export const RELEASE_IDLE_MS = 5_000;

/** The reason a run object gives when it releases itself (what a call cut by it fails with). */
export const RELEASED = 'released: the run is final and idle';

export class IdleRelease {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private calls = 0;

  constructor(
    /** Whether the object may leave memory (its run is final, nothing executes or follows it). */
    private readonly idle: () => boolean,
    private readonly release: () => void,
    private readonly ms = RELEASE_IDLE_MS,
  ) {}

  /** Starts the idle period again (a call came, or the object became idle). */
  touch(): void {
    this.stop();
    if (this.calls > 0 || !this.idle()) return;
    this.timer = setTimeout(() => {
      if (this.calls === 0 && this.idle()) this.release();
    }, this.ms);
  }

  /** Runs `work` with the release held off until it ends, then starts the idle period again. */
  async during<T>(work: () => Promise<T>): Promise<T> {
    this.calls++;
    this.stop();
    try {
      return await work();
    } finally {
      this.calls--;
      this.touch();
    }
  }

  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }
}
