/**
 * Nested `replies` and the query limits (pure). A thread's comments come in one statement
 * and the reply tree is built in memory (topics.ts), so asking `replies` twelve levels deep
 * reads nothing more than asking one level: each comment is resolved once, at its own
 * level, whatever the depth asked. The depth and cost limits therefore see a `replies`
 * chain as one level holding the fields of all its levels (the client asks three levels, then six, nine and twelve
 * while a thread is deeper than what it got); the chain itself is bounded by REPLY_LEVELS.
 */
import {
  GraphQLError,
  Kind,
  type OperationDefinitionNode,
  type SelectionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';

/** Most `replies` levels nested in one query (the client asks at most 12). */
export const REPLY_LEVELS = 16;

/**
 * The selection set with each `replies` nested inside a `replies` field replaced by its
 * own fields (so a chain is one level holding every level's fields), and the longest chain
 * of nested `replies` levels it had. Fragments are left as they are (the limits then count
 * them in full).
 */
export function collapseReplies(set: SelectionSetNode, inReplies = false): { set: SelectionSetNode; levels: number } {
  let levels = 0;
  const kept: SelectionNode[] = [];
  for (const s of set.selections) {
    if (s.kind === Kind.FIELD && s.selectionSet) {
      const replies = s.name.value === 'replies';
      const inner = collapseReplies(s.selectionSet, inReplies || replies);
      levels = Math.max(levels, inner.levels + (replies ? 1 : 0));
      // A nested level's fields join the first level's: counted once each, not x1.5 per level.
      if (replies && inReplies) kept.push(...inner.set.selections);
      else kept.push({ ...s, selectionSet: inner.set });
    } else if (s.kind === Kind.INLINE_FRAGMENT) {
      const inner = collapseReplies(s.selectionSet, inReplies);
      levels = Math.max(levels, inner.levels);
      kept.push({ ...s, selectionSet: inner.set });
    } else kept.push(s);
  }
  return { set: { ...set, selections: kept }, levels };
}

/** The operation as the depth and cost limits see it: each `replies` chain as one level. */
export const collapsedOperation = (op: OperationDefinitionNode): OperationDefinitionNode => ({
  ...op,
  selectionSet: collapseReplies(op.selectionSet).set,
});

/** A rule that judges a whole operation on entering it (graphql-armor's visitors). */
type OperationRule = (ctx: ValidationContext) => { readonly OperationDefinition: Record<string, unknown> };

/** A limit rule (graphql-armor's depth or cost) applied to the collapsed operation. */
export const onCollapsed =
  (rule: OperationRule): ValidationRule =>
  (ctx) => {
    const visitor = rule(ctx);
    const enter = visitor.OperationDefinition.enter as (op: OperationDefinitionNode) => void;
    return { OperationDefinition: { enter: (op) => enter.call(visitor, collapsedOperation(op)) } };
  };

/** Refuses a query with more than REPLY_LEVELS nested `replies` levels. */
export const maxReplyLevels: ValidationRule = (ctx) => ({
  OperationDefinition: {
    enter(op) {
      const { levels } = collapseReplies(op.selectionSet);
      if (levels > REPLY_LEVELS)
        ctx.reportError(
          new GraphQLError(`Syntax Error: Query replies depth limit of ${REPLY_LEVELS} exceeded, found ${levels}.`),
        );
    },
  },
});
