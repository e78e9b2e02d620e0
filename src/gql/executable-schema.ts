/**
 * The executable schema: the SDL built by graphql-js, with the resolver map's functions set on
 * its fields (`resolve`) and on its abstract types (`__resolveType` as `resolveType`). The same
 * result as graphql-tools' makeExecutableSchema for a map of plain resolvers, without
 * loading that library (and its 200 KiB) into every isolate.
 */
import { buildSchema, isAbstractType, isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';

type FieldResolver = GraphQLFieldResolver<unknown, unknown>;
/** Per type name: a resolver per field, or `__resolveType` for an interface or union. */
export type ResolverMap = Record<string, Record<string, FieldResolver | ((value: never) => string)>>;

/** The schema of `typeDefs` with `resolvers` attached; a resolver for no such type or field throws. */
export function executableSchema(typeDefs: string, resolvers: ResolverMap): GraphQLSchema {
  const schema = buildSchema(typeDefs);
  for (const [typeName, fields] of Object.entries(resolvers)) {
    const type = schema.getType(typeName);
    if (!type) throw new Error(`resolvers name the type ${typeName}, which the schema does not have`);
    for (const [name, fn] of Object.entries(fields)) {
      if (name === '__resolveType' && isAbstractType(type)) type.resolveType = fn as never;
      else if (isObjectType(type) && type.getFields()[name]) type.getFields()[name]!.resolve = fn as FieldResolver;
      else throw new Error(`resolvers name ${typeName}.${name}, which the schema does not have`);
    }
  }
  return schema;
}
