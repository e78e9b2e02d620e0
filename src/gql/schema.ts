/**
 * The GraphQL schema: SDL and resolvers. Every resolver reads through the per-request
 * loaders (src/gql/loaders.ts) and the same visibility rules as REST.
 */
import { Kind, type GraphQLResolveInfo, type SelectionSetNode } from 'graphql';
import { createSchema } from 'graphql-yoga';
import { and, asc, eq, or } from 'drizzle-orm';
import type { Db } from '../core/context';
import { users, type User } from '../db/schema';
import { candidateOrgs } from '../groups/visibility';
import { candidateGroups, myGroups, shapeGroups, type GqlGroup, type GroupFilter } from './groups';
import { entryOf, KINDS, listItems, type Item, type ListArgs } from './items';
import type { Loaders } from './loaders';
import { enabledFlag, page, tagInfo, textOrNull } from './values';
import { lastRunOf } from './jobs';

export interface GqlContext {
  env: Env;
  db: Db;
  caller: User | null;
  loaders: Loaders;
}

/**
 * The fields of the Item interface, repeated (as GraphQL requires) by each item type;
 * `typeNote` describes what `type` holds for that type.
 */
const itemFieldsSdl = (typeNote?: string) => /* GraphQL */ `"The resource name (the path segment)."
    id: ID!
    "Display name (the name entry; the id when unset)."
    name: String!
    ${typeNote ? `"${typeNote}"\n    ` : ''}type: String!
    summary: String!
    url: String
    owner: String!
    shortname: String!
    created: String!
    updated: String!
    public: Boolean!
    shared: [ShareTarget!]!
    tags: [Tag!]!`;
const ITEM_FIELDS = itemFieldsSdl();

export const typeDefs = /* GraphQL */ `
  """
  The platform's read API. Listings follow the REST visibility exactly: without
  author, the caller's own resources; with author, that user's resources the caller
  may read through a share.
  """
  type Query {
    "The caller (null for anonymous requests)."
    me: Me
    docs(author: String, id: String, limit: Int = 100, offset: Int = 0): [Doc!]!
    mails(author: String, id: String, limit: Int = 100, offset: Int = 0): [Mail!]!
    grids(author: String, id: String, limit: Int = 100, offset: Int = 0): [Grid!]!
    jobs(author: String, id: String, limit: Int = 100, offset: Int = 0): [Job!]!
    "Users with a public profile and the caller; or the one user named."
    users(username: String, limit: Int = 100, offset: Int = 0): [User!]!
    "Groups the caller belongs to or oversees (org founders and admins); naming one finds any group the caller may see."
    groups(id: ID, name: String, type: GroupType, parent_group: String): [Group!]!
    "Organisations visible to the caller."
    orgs: [Group!]!
  }

  type Me {
    username: String!
    timezone: String!
    email: String
    "Groups the caller holds each active role in."
    founder: [Group!]!
    admin: [Group!]!
    superuser: [Group!]!
    member: [Group!]!
  }

  type User {
    username: String!
    account: String!
    public: Boolean!
  }

  enum GroupType {
    user_group
    org_group
    org
  }

  enum TagType {
    system
    user
    category
  }

  "A group a resource is shared with."
  type ShareTarget {
    "The group reference (@user~group, +org~group, +org)."
    id: ID!
    "The group's slug."
    name: String!
    type: GroupType!
  }

  "One of the caller's tags on a resource."
  type Tag {
    "The tag as written (fav, +mine, =finance)."
    id: ID!
    name: String!
    type: TagType!
  }

  interface Item {
    ${ITEM_FIELDS}
  }

  type Doc implements Item {
    ${itemFieldsSdl('Layout: config/type (doc, docs, pres, blog, web).')}
  }

  type Grid implements Item {
    ${ITEM_FIELDS}
  }

  type Mail implements Item {
    ${ITEM_FIELDS}
    enabled: Boolean!
  }

  type Job implements Item {
    ${ITEM_FIELDS}
    "config/schedule (null when unscheduled)."
    schedule: String
    "config/enabled (false after auto-pause)."
    enabled: Boolean!
    "The latest run; null when there is none or the caller may not read runs."
    last_run: Run
  }

  type Run {
    status: String!
    started_on: String
    "Seconds; null while running."
    duration: Float
  }

  type Group {
    "The group reference (@user~group, +org~group, +org)."
    id: ID!
    "The slug."
    name: String!
    type: GroupType!
    "The organisation of an org group."
    parent_group: String
    "Markdown description; null when the caller may not see it."
    description: String
    profile: Profile
    options: Options
    "The caller's role (founders, admins, superusers, members); null until one is held."
    role: String
    "Inbound address of a mail-enabled org group; null otherwise."
    email: String
    "Number of accepted members; null when the roster is hidden."
    members: Int
    roster: [RosterEntry!]
  }

  type Profile {
    name: String
    description: String
  }

  type Options {
    public: Boolean!
    show_profile: Boolean!
    show_description: Boolean!
    show_members: Boolean!
    is_open: Boolean!
  }

  type RosterEntry {
    username: String!
    role: String!
    pending: Boolean!
  }
`;

type Args<T> = T & Record<string, unknown>;

const itemFields = {
  id: (i: Item) => i.row.name,
  name: (i: Item) => entryOf(i, 'name') || i.row.name,
  type: (i: Item) => entryOf(i, 'config/type') || i.kind.kind,
  summary: (i: Item) => entryOf(i, 'summary') ?? '',
  url: (i: Item, _: unknown, c: GqlContext) => i.kind.url?.(c.env, i.owner, i.row.name) ?? null,
  owner: (i: Item) => i.owner,
  shortname: (i: Item) => i.row.shortname,
  created: (i: Item) => i.row.created_on,
  updated: (i: Item) => i.row.last_modified,
  public: (i: Item) => i.shares.some((s) => s.group_id === null),
  shared: (i: Item) => i.shares.filter((s) => s.ref !== null).map((s) => ({ id: s.ref, name: s.slug, type: s.kind })),
  tags: (i: Item) => i.tags.map((t) => tagInfo(t.tag)),
};

const enabled = (i: Item) => enabledFlag(entryOf(i, 'config/enabled'));

/** Entry paths behind item fields. */
const ENTRY_FIELDS: Record<string, string> = { name: 'name', type: 'config/type', summary: 'summary', schedule: 'config/schedule', enabled: 'config/enabled' };

/** Names of the fields selected below this field (fragments included). */
export function selectedFields(info: Pick<GraphQLResolveInfo, 'fieldNodes' | 'fragments'>): Set<string> {
  const out = new Set<string>();
  const visit = (set: SelectionSetNode | undefined) => {
    for (const s of set?.selections ?? []) {
      if (s.kind === Kind.FIELD) out.add(s.name.value);
      else if (s.kind === Kind.INLINE_FRAGMENT) visit(s.selectionSet);
      else visit(info.fragments[s.name.value]?.selectionSet);
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet);
  return out;
}

const list = (kind: keyof typeof KINDS) => (_: unknown, args: Args<ListArgs>, c: GqlContext, info: GraphQLResolveInfo) => {
  const fields = selectedFields(info);
  return listItems(c, KINDS[kind], args, {
    paths: [...fields].filter((f) => f in ENTRY_FIELDS).map((f) => ENTRY_FIELDS[f]!),
    shares: fields.has('public') || fields.has('shared') || fields.has('last_run'),
    tags: fields.has('tags'),
  });
};

interface Me {
  user: User;
  /** The caller's groups by role, loaded once however many role fields are asked. */
  groups: () => ReturnType<typeof groupsByRole>;
}

function once<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= fn());
}

async function groupsByRole(c: GqlContext, caller: User) {
  const held = await myGroups(c.db, caller);
  const shaped = new Map((await shapeGroups(c.env, c.db, caller, held.map((h) => h.group))).map((g) => [g.group.id, g]));
  const byRole = (role: string) => held.filter((h) => h.role === role && shaped.has(h.group.id)).map((h) => shaped.get(h.group.id)!);
  return { founder: byRole('founders'), admin: byRole('admins'), superuser: byRole('superusers'), member: byRole('members') };
}

export const resolvers = {
  Query: {
    me: (_: unknown, __: unknown, c: GqlContext): Me | null => (c.caller ? { user: c.caller, groups: once(() => groupsByRole(c, c.caller!)) } : null),
    docs: list('doc'),
    mails: list('mail'),
    grids: list('grid'),
    jobs: list('job'),
    users: async (_: unknown, args: Args<{ username?: string | null; limit?: number | null; offset?: number | null }>, c: GqlContext) => {
      const { limit, offset } = page(args);
      const reach = or(eq(users.profile_public, true), eq(users.id, c.caller?.id ?? -1));
      const where = args.username != null ? eq(users.username, args.username) : reach;
      if (limit === 0) return [];
      return c.db
        .select({ username: users.username, account: users.account, public: users.profile_public })
        .from(users)
        .where(and(where))
        .orderBy(asc(users.username))
        .limit(limit)
        .offset(offset);
    },
    groups: async (_: unknown, args: Args<GroupFilter>, c: GqlContext) => shapeGroups(c.env, c.db, c.caller, await candidateGroups(c.db, c.caller, args)),
    orgs: async (_: unknown, __: unknown, c: GqlContext) => shapeGroups(c.env, c.db, c.caller, await candidateOrgs(c.db, c.caller)),
  },
  Me: {
    username: (m: Me) => m.user.username,
    timezone: (m: Me) => m.user.timezone,
    email: (m: Me) => m.user.email,
    founder: async (m: Me) => (await m.groups()).founder,
    admin: async (m: Me) => (await m.groups()).admin,
    superuser: async (m: Me) => (await m.groups()).superuser,
    member: async (m: Me) => (await m.groups()).member,
  },
  Item: {
    __resolveType: (i: Item) => ({ doc: 'Doc', grid: 'Grid', mail: 'Mail', job: 'Job' })[i.kind.kind],
  },
  Doc: itemFields,
  Grid: itemFields,
  Mail: { ...itemFields, enabled },
  Job: {
    ...itemFields,
    enabled,
    schedule: (i: Item) => textOrNull(entryOf(i, 'config/schedule')),
    last_run: (i: Item, _: unknown, c: GqlContext) => lastRunOf(c, i),
  },
  Group: {
    id: (g: GqlGroup) => g.info.ref,
    name: (g: GqlGroup) => g.info.name,
    type: (g: GqlGroup) => g.info.kind,
    parent_group: (g: GqlGroup) => g.info.org,
    description: (g: GqlGroup) => g.info.description,
    profile: (g: GqlGroup) => (g.info.profile ? { name: g.info.profile.name, description: g.info.description } : null),
    options: (g: GqlGroup, _: unknown, c: GqlContext) => (g.profile ? c.loaders.options.load(g.group.id) : null),
    role: (g: GqlGroup) => g.info.role || null,
    email: (g: GqlGroup) => g.info.email,
    members: (g: GqlGroup) => g.info.members?.filter((m) => m.state === 'active').length ?? null,
    roster: (g: GqlGroup) => g.info.members?.map((m) => ({ username: m.username, role: m.role, pending: m.state === 'pending' })) ?? null,
  },
};

export const schema = createSchema<GqlContext>({ typeDefs, resolvers: resolvers as never });

