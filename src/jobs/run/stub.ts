/** A run's Durable Object by its name: the RunObject (durable/run.ts) that owns the run's state and log. */
import { RELEASED } from './release';

/**
 * The Durable Object of the run `name` (typed by the RUNS binding: src/ never imports durable/).
 * A call that reaches the object just as it releases itself (release.ts) fails with RELEASED
 * without having run: it is made once more, which builds the object again from storage.
 */
export function runStub(env: Env, name: string) {
  return againIfReleased(() => env.RUNS.get(env.RUNS.idFromName(name)));
}

/** Whether `err` is a call cut by the object releasing itself. */
const wasReleased = (err: unknown): boolean => err instanceof Error && err.message.includes(RELEASED);

/**
 * The stub `open` makes, whose method calls are made a second time when the first was cut by a
 * release: on a new stub, since a stub whose object broke off stays broken.
 */
export function againIfReleased<T extends object>(open: () => T): T {
  const stub = open();
  return new Proxy(stub, {
    get(target, prop) {
      const member: unknown = Reflect.get(target, prop);
      if (typeof prop !== 'string' || typeof member !== 'function') return member;
      return async (...args: unknown[]) => {
        try {
          // Reflect.apply, not member.apply: an RPC stub takes `.apply` for a remote property.
          return await Reflect.apply(member, target, args);
        } catch (err) {
          if (!wasReleased(err)) throw err;
          const fresh = open();
          return Reflect.apply(Reflect.get(fresh, prop) as (...a: unknown[]) => unknown, fresh, args);
        }
      };
    },
  });
}
