/**
 * A render's deadline (a document's PDF or deck, a plot's PNG): the answer is due by then,
 * whether or not the work has ended. A browser that never answers cannot hold a request
 * past it; the work left running settles later, and nothing waits for it.
 */

/** What `work` answers, or the error `late()` makes once `ms` pass first. */
export async function byDeadline<T>(work: Promise<T>, ms: number, late: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(late()), ms);
  });
  work.catch(() => undefined); // settles after the deadline: nothing waits for it
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
