/**
 * The fast path of the listings: a query the plan takes (fast-plan.ts: `me` and the item
 * listings with plain fields) is answered by walking its plan over the values, calling the
 * schema's own resolvers, without graphql-js's per-field work (a resolve-info object, a
 * response path, promise checks and type tests for every field of every item: most of a
 * 1,000-item listing's time, largely in garbage collection).
 *
 * The answer is graphql-js's, byte for byte: the same resolvers (so the same page read, with
 * the core's visibility condition, and the same batch loaders per page), the same response
 * keys in the same order, leaves serialized by their own types. Anything that would make
 * graphql-js answer an error (a resolver that throws, null in a non-null field, a variable
 * that does not coerce) gives up: graphql-js then runs the query and answers it.
 */
import {
  getArgumentValues,
  getVariableValues,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLResolveInfo,
} from 'graphql';
import { cachedPlanOf, type FieldPlan, type Shape } from './fast-plan';

type Resolve = (source: unknown, args: Record<string, unknown>, context: unknown, info: GraphQLResolveInfo) => unknown;

/** Why the fast path stops: graphql-js answers instead. */
class GiveUp extends Error {}

const NO_ARGS: Record<string, unknown> = Object.freeze({});
const isThenable = (v: unknown): v is PromiseLike<unknown> =>
  typeof (v as PromiseLike<unknown> | null)?.then === 'function';

/** One run of a plan: the values resolved so far and the resolvers still awaited. */
class Run {
  private pending: Promise<void>[] = [];
  private failed = false;

  constructor(
    private context: unknown,
    private variables: Record<string, unknown>,
  ) {}

  /** The selected fields of one object, in the plan's order (graphql-js's executeFields). */
  fields(fields: FieldPlan[], source: unknown, typeName: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const f of fields) {
      if (!f.def) {
        out[f.key] = typeName;
        continue;
      }
      const resolve = (f.def.resolve as Resolve | undefined) ?? property(f.def.name);
      const args = f.def.args.length ? getArgumentValues(f.def, f.node, this.variables) : NO_ARGS;
      // The fields the plan takes read no more of the info than FieldInfo (resolvers.ts `list`).
      const value = resolve(source, args, this.context, f.info as GraphQLResolveInfo);
      if (isThenable(value)) {
        out[f.key] = null; // holds the key's place: the answer keeps the selection's order
        this.later(value, (v) => (out[f.key] = this.complete(f.shape, v)));
      } else out[f.key] = this.complete(f.shape, value);
    }
    return out;
  }

  /** A resolved value as the answer shows it (graphql-js's completeValue). */
  complete(shape: Shape, value: unknown): unknown {
    if (value instanceof Error) throw value;
    switch (shape.kind) {
      case 'nonNull': {
        const v = this.complete(shape.of, value);
        if (v == null) throw new GiveUp('null in a non-null field');
        return v;
      }
      case 'typename':
        throw new GiveUp('__typename is not resolved');
    }
    if (value == null) return null;
    switch (shape.kind) {
      case 'list':
        if (!Array.isArray(value)) throw new GiveUp('a list that is not an array');
        return value.map((v: unknown) => {
          if (isThenable(v)) throw new GiveUp('a promise inside a list');
          return this.complete(shape.of, v);
        });
      case 'leaf': {
        const v = shape.type.serialize(value);
        if (v === undefined) throw new GiveUp('a leaf that does not serialize');
        return v;
      }
      case 'object':
        return this.fields(shape.fields, value, shape.type.name);
    }
  }

  private later(value: PromiseLike<unknown>, then: (v: unknown) => void): void {
    this.pending.push(
      Promise.resolve(value)
        .then(then)
        .catch(() => {
          this.failed = true;
        }),
    );
  }

  /** Waits for every awaited resolver (and those their values start); false when one failed. */
  async settled(): Promise<boolean> {
    while (this.pending.length && !this.failed) await Promise.all(this.pending.splice(0));
    return !this.failed;
  }
}

/** graphql-js's default resolver for the plain values below a listing (a method is left to graphql-js). */
function property(name: string): Resolve {
  return (source) => {
    const v = (source as Record<string, unknown>)[name];
    if (typeof v === 'function') throw new GiveUp('a method as a field');
    return v;
  };
}

/**
 * The answer of a query the fast path takes: null when it does not take it (at once), or
 * when it gave up on the way (graphql-js answers instead).
 */
export function fastExecute(args: ExecutionArgs): Promise<ExecutionResult | null> | null {
  const plan = cachedPlanOf(args.schema, args.document, args.operationName);
  if (!plan) return null;
  const variables = getVariableValues(args.schema, plan.operation.variableDefinitions ?? [], args.variableValues ?? {});
  if (variables.errors) return null;
  return (async () => {
    const run = new Run(args.contextValue, variables.coerced);
    try {
      const data = run.fields(plan.fields, args.rootValue, plan.root.name);
      return (await run.settled()) ? { data } : null;
    } catch {
      return null;
    }
  })();
}
