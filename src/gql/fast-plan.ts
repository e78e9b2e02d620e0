/**
 * The fast path's plan (pure: the query's syntax tree and the schema in, a plan or null
 * out). The fast path (fast-path.ts) answers the listings without graphql-js's per-field
 * machinery; this module decides which queries it may take and compiles their selection
 * once per document: for each field its response key, its definition (and resolver) and
 * how its value becomes the answer (graphql-js's value completion, for these shapes).
 *
 * Taken: a query whose root fields are `me` and the listings, whose `me` asks only its
 * own scalars and listings, with plain fields (no fragments, directives or repeated
 * response keys) and object types only (no interface or union). Anything else is null:
 * graphql-js answers it.
 */
import {
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLLeafType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLResolveInfo,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/** How a resolved value becomes the answer (graphql-js's completeValue, for what the fast path takes). */
export type Shape =
  | { kind: 'nonNull'; of: Shape }
  | { kind: 'list'; of: Shape }
  | { kind: 'leaf'; type: GraphQLLeafType }
  /** `__typename`: the name of the object type that holds it. */
  | { kind: 'typename' }
  | { kind: 'object'; type: GraphQLObjectType; fields: FieldPlan[] };

export interface FieldPlan {
  /** The response key (the alias, else the field's name). */
  key: string;
  node: FieldNode;
  /** The field's definition; null for `__typename`. */
  def: GraphQLField<unknown, unknown> | null;
  shape: Shape;
  /** What its resolver is given of a resolve-info: the field's node (the plan has no fragments). */
  info: FieldInfo;
}

/** The part of a resolve-info the resolvers of the fast path's fields read (resolvers.ts selectedFields). */
export type FieldInfo = Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>;

export interface Plan {
  operation: OperationDefinitionNode;
  root: GraphQLObjectType;
  fields: FieldPlan[];
}

/**
 * The fields the fast path runs on the root and on `me` (the listings and what the command
 * line asks beside them); below a listing, every field is an item's.
 */
const FAST_FIELDS: Readonly<Record<string, ReadonlySet<string>>> = {
  Query: new Set(['me', 'docs', 'grids', 'mails', 'jobs', 'plots']),
  Me: new Set(['username', 'timezone', 'email', 'docs', 'grids', 'mails', 'jobs', 'plots']),
};

/** The operation graphql-js would run (null when it would answer an error instead). */
function operationOf(document: DocumentNode, name: string | null | undefined): OperationDefinitionNode | null {
  const ops = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
  if (name == null) return ops.length === 1 ? ops[0]! : null;
  return ops.find((o) => o.name?.value === name) ?? null;
}

function shapeOf(type: GraphQLOutputType, set: SelectionSetNode | undefined): Shape | null {
  if (isNonNullType(type)) {
    const of = shapeOf(type.ofType, set);
    return of && { kind: 'nonNull', of };
  }
  if (isListType(type)) {
    const of = shapeOf(type.ofType, set);
    return of && { kind: 'list', of };
  }
  if (isLeafType(type)) return set ? null : { kind: 'leaf', type };
  // An object type checked by isTypeOf would need graphql-js's own check: none here has one.
  if (!isObjectType(type) || !set || type.isTypeOf) return null;
  const fields = fieldsOf(type, set);
  return fields && { kind: 'object', type, fields };
}

function fieldsOf(type: GraphQLObjectType, set: SelectionSetNode): FieldPlan[] | null {
  const allowed = FAST_FIELDS[type.name];
  const defs = type.getFields();
  const out: FieldPlan[] = [];
  const keys = new Set<string>();
  for (const node of set.selections) {
    if (node.kind !== Kind.FIELD || node.directives?.length) return null;
    const name = node.name.value;
    const key = node.alias?.value ?? name;
    // A repeated key merges selections (graphql-js's collectFields): left to graphql-js.
    if (keys.has(key)) return null;
    keys.add(key);
    if (name === '__typename') {
      if (node.selectionSet) return null;
      out.push({ key, node, def: null, shape: { kind: 'typename' }, info: { fieldNodes: [node], fragments: {} } });
      continue;
    }
    const def = defs[name];
    if (!def || (allowed && !allowed.has(name))) return null;
    const shape = shapeOf(def.type, node.selectionSet);
    if (!shape) return null;
    out.push({ key, node, def, shape, info: { fieldNodes: [node], fragments: {} } });
  }
  return out;
}

/** The plan of a query the fast path takes, or null (graphql-js answers it). */
export function planOf(schema: GraphQLSchema, document: DocumentNode, operationName?: string | null): Plan | null {
  const operation = operationOf(document, operationName);
  const root = schema.getQueryType();
  if (!operation || operation.operation !== 'query' || operation.directives?.length || !root) return null;
  const fields = fieldsOf(root, operation.selectionSet);
  return fields && { operation, root, fields };
}

const plans = new WeakMap<DocumentNode, Map<string, Plan | null>>();

/**
 * planOf, kept per document: the server keeps the parsed document of a query text (document-cache.ts), so a repeated
 * query is planned once (the isolate serves one schema).
 */
export function cachedPlanOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName?: string | null,
): Plan | null {
  let byName = plans.get(document);
  if (!byName) plans.set(document, (byName = new Map()));
  const name = operationName ?? '';
  if (!byName.has(name)) byName.set(name, planOf(schema, document, operationName));
  return byName.get(name)!;
}
