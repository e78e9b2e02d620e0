/**
 * The GraphQL schema: the resolvers over the SDL of schema.graphql. Every resolver reads through the per-request
 * loaders (src/gql/loaders.ts) and the same visibility rules as REST.
 */
import { Kind, type GraphQLSchema, type SelectionSetNode } from 'graphql';
import { and, asc, eq, gt, or } from 'drizzle-orm';
import { now } from '../core/clock';
import type { Db } from '../core/context';
import { firstPage } from '../core/paging';
import { listTokens } from '../core/tokens';
import { DELETED_AUTHOR } from '../core/thread/rules';
import { yesNo } from '../core/yes-no';
import { users, type User } from '../db/schema';
import { candidateOrgs } from '../groups/visibility';
import { candidateGroups, myGroups, shapeGroups, type GqlGroup, type GroupFilter } from './groups';
import type { FieldInfo } from './fast-plan';
import { entryOf, KINDS, listItems, type Item, type ListArgs } from './item-lists';
import type { Loaders } from './loaders';
import { page, rfc2822, slicePage, tagInfo, textOrNull } from './values';
import { lastRunOf, runStats } from './jobs';
import { PERSON_COLUMNS, profileShown, type PersonRow } from './people';
import { mentionsOf, type GqlComment, type GqlTopic } from './topics';
import typeDefs from './schema.graphql';
import { executableSchema, type ResolverMap } from './executable-schema';
import { varsFromEntries } from '../docs/vars';
import { parseChains } from '../jobs/chains';
import { endpointsOf } from '../webhooks/endpoints';

// A type, not an interface: graphql-http takes a context assignable to a record.
export type GqlContext = {
  env: Env;
  db: Db;
  caller: User | null;
  loaders: Loaders;
};

type Args<T> = T & Record<string, unknown>;
/** `limit` and `offset` of a list read whole. */
type Slice = { limit?: number | null; offset?: number | null };

const itemFields = {
  id: (i: Item) => i.row.name,
  name: (i: Item) => entryOf(i, 'name') || i.row.name,
  type: (i: Item) => entryOf(i, 'config/type') || i.kind.kind,
  summary: (i: Item) => entryOf(i, 'summary') ?? '',
  url: (i: Item, _: unknown, c: GqlContext) => i.kind.url?.(c.env, i.owner, i.row.name) ?? null,
  owner: (i: Item) => i.owner,
  shortname: (i: Item) => i.row.shortname,
  created: (i: Item) => rfc2822(i.row.created_on),
  updated: (i: Item) => rfc2822(i.row.last_modified),
  public: (i: Item) => i.shares.some((s) => s.group_id === null),
  shared: (i: Item) => i.shares.filter((s) => s.ref !== null).map((s) => ({ id: s.ref, name: s.slug, type: s.kind })),
  tags: (i: Item) => i.tags.map((t) => tagInfo(t.tag)),
  author: (i: Item) => ({ username: i.owner }),
  social: () => ({ views: 0 }),
  // A listed item is one the caller may read (every listing, those of a group's shared
  // items included), and with it its threads (REST: need r).
  topics: (i: Item, _: unknown, c: GqlContext) => c.loaders.topicsOfResource.load(i.row.id),
  vars: (i: Item) => (i.kind.kind === 'doc' ? varsFromEntries(i.entries).map((v) => ({ id: v.name, ...v })) : []),
};

const enabled = (i: Item) => yesNo(entryOf(i, 'config/enabled'), true);

/** Entry paths behind item fields. */
const ENTRY_FIELDS: Record<string, string> = {
  name: 'name',
  type: 'config/type',
  summary: 'summary',
  schedule: 'config/schedule',
  enabled: 'config/enabled',
  job_steps: 'config/chains',
  triggers: 'config/schedule',
};
/** Job fields that show runs: they need the caller's access (the sharing rows). */
const RUN_FIELDS = ['last_run', 'last_run_status', 'last_run_time', 'run_count', 'current_step', 'triggers'];

/** Names of the fields selected below this field (fragments included). */
function selectedFields(info: FieldInfo): Set<string> {
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

const list = (kind: keyof typeof KINDS) => (_: unknown, args: Args<ListArgs>, c: GqlContext, info: FieldInfo) => {
  const fields = selectedFields(info);
  return listItems(
    c,
    KINDS[kind],
    { author: args.author, id: args.id, limit: args.limit, offset: args.offset, after: args.after },
    {
      paths: [...new Set([...fields].filter((f) => f in ENTRY_FIELDS).map((f) => ENTRY_FIELDS[f]!))],
      shares: fields.has('public') || fields.has('shared') || RUN_FIELDS.some((f) => fields.has(f)),
      tags: fields.has('tags'),
      vars: fields.has('vars'),
    },
  );
};
/** The caller's own resources of a kind (`me { docs }`): the root listing without author. */
const mine = (kind: keyof typeof KINDS) => (_: Me, args: Args<ListArgs>, c: GqlContext, info: FieldInfo) =>
  list(kind)(null, { limit: args.limit, offset: args.offset, after: args.after }, c, info);

function jobSteps(i: Item): number {
  const chains = i.entries.get('config/chains');
  if (!chains?.trim()) return 1;
  try {
    return Math.max(1, parseChains(chains).length);
  } catch {
    return 1; // an invalid chain cannot be stored; an old one counts as own code
  }
}

const TRIGGERS = ['api', 'email', 'schedule'];

const jobFields = {
  last_run_status: async (i: Item, _: unknown, c: GqlContext) => (await runStats(i, c)).stats?.last_status ?? null,
  last_run_time: async (i: Item, _: unknown, c: GqlContext) => rfc2822((await runStats(i, c)).stats?.last_started),
  run_count: async (i: Item, _: unknown, c: GqlContext) => {
    const r = await runStats(i, c);
    return r.shown ? (r.stats?.runs ?? 0) : null;
  },
  job_steps: jobSteps,
  current_step: async (i: Item, _: unknown, c: GqlContext) => {
    const st = (await runStats(i, c)).stats;
    if (st?.last_status !== 'processing') return null;
    const steps = jobSteps(i);
    return steps === 1 ? 1 : Math.min(steps, Math.max(1, st.last_children));
  },
  triggers: async (i: Item, _: unknown, c: GqlContext) => {
    const seen = new Set<string>(['api', ...((await runStats(i, c)).stats?.triggers ?? [])]);
    if (textOrNull(entryOf(i, 'config/schedule'))) seen.add('schedule');
    return TRIGGERS.filter((t) => seen.has(t));
  },
};

/** Accounts of a group's roster with a role and state, in roster order. */
async function rosterUsers(
  g: GqlGroup,
  role: string,
  state: 'active' | 'pending',
  c: GqlContext,
): Promise<PersonRow[]> {
  const names = (g.info.members ?? []).filter((m) => m.role === role && m.state === state).map((m) => m.username);
  const rows = await c.loaders.userByName.loadMany(names);
  return rows.filter((r): r is PersonRow => !!r && !(r instanceof Error));
}

const flag = (name: string) => async (g: GqlGroup, _: unknown, c: GqlContext) =>
  g.profile ? (await c.loaders.groupFlags.load(g.group.id)).has(name) : null;
// Items shared with a group the caller sees, those the caller can read (as GET /v1/o/<group ref>/<kind>).
const sharedWith = (kind: keyof typeof KINDS) => (g: GqlGroup, _: unknown, c: GqlContext) =>
  c.loaders.itemsOfGroup(kind).load(g.group.id);
const ownedBy = (kind: keyof typeof KINDS) => (u: PersonRow, _: unknown, c: GqlContext) =>
  c.loaders.itemsOfOwner(kind).load(u.id);
const none = () => [];

const topicFields = {
  topic_id: (t: GqlTopic) => t.id,
  slug: (t: GqlTopic) => t.topic,
  message: (t: GqlTopic) => t.message,
  audience: (t: GqlTopic) => t.audience,
  status: () => 'open',
  num_comments: (t: GqlTopic) => t.all.length,
  num_likes: () => 0,
  num_dislikes: () => 0,
  likes: () => 0,
  dislikes: () => 0,
  my_reaction: () => null,
  edited: (t: GqlTopic) => t.edited,
  created: (t: GqlTopic) => rfc2822(t.created_on),
  updated: (t: GqlTopic) =>
    rfc2822([t.created_on, t.updated_on ?? '', ...t.all.map((m) => m.updated_on)].reduce((a, b) => (b > a ? b : a))),
  creator: (t: GqlTopic) => ({ username: t.creator ?? DELETED_AUTHOR }),
  mentions: (t: GqlTopic, _: unknown, c: GqlContext) =>
    mentionsOf(t.message, (name) => c.loaders.userByName.load(name)),
  comments: (t: GqlTopic) => t.comments,
};

const commentFields = {
  comment_id: (m: GqlComment) => m.id,
  slug: (m: GqlComment) => m.slug,
  message: (m: GqlComment) => m.text,
  depth: (m: GqlComment) => m.depth,
  deleted: () => false,
  edited: (m: GqlComment) => m.edited,
  num_replies: (m: GqlComment) => m.replies.length,
  likes: () => 0,
  dislikes: () => 0,
  my_reaction: () => null,
  created: (m: GqlComment) => rfc2822(m.created_on),
  updated: (m: GqlComment) => rfc2822(m.updated_on),
  // A deleted account's comments read as REST shows them.
  creator: (m: GqlComment) => ({ username: m.author ?? DELETED_AUTHOR }),
  mentions: (m: GqlComment, _: unknown, c: GqlContext) => mentionsOf(m.text, (name) => c.loaders.userByName.load(name)),
  replies: (m: GqlComment) => m.replies,
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
  const shaped = new Map(
    (
      await shapeGroups(
        c.env,
        c.db,
        caller,
        held.map((h) => h.group),
      )
    ).map((g) => [g.group.id, g]),
  );
  const byRole = (role: string) =>
    held.filter((h) => h.role === role && shaped.has(h.group.id)).map((h) => shaped.get(h.group.id)!);
  return {
    founder: byRole('founders'),
    admin: byRole('admins'),
    superuser: byRole('superusers'),
    member: byRole('members'),
  };
}

const resolvers = {
  Query: {
    me: (_: unknown, __: unknown, c: GqlContext): Me | null =>
      c.caller ? { user: c.caller, groups: once(() => groupsByRole(c, c.caller!)) } : null,
    docs: list('doc'),
    mails: list('mail'),
    grids: list('grid'),
    jobs: list('job'),
    plots: list('plot'),
    users: async (
      _: unknown,
      args: Args<{ username?: string | null; limit?: number | null; offset?: number | null; after?: string | null }>,
      c: GqlContext,
    ) => {
      const { limit, offset, after } = page(args);
      // Naming a user finds them only within the listing's reach (profileShown): a private
      // profile is not found, whoever asks, except by its owner.
      const reach = or(eq(users.profile_public, true), eq(users.id, c.caller?.id ?? -1));
      const where = and(
        args.username != null ? eq(users.username, args.username) : undefined,
        after !== null ? gt(users.username, after) : undefined,
        reach,
      );
      if (limit === 0) return [];
      return c.db
        .select(PERSON_COLUMNS)
        .from(users)
        .where(where)
        .orderBy(asc(users.username))
        .limit(limit)
        .offset(offset);
    },
    groups: async (_: unknown, args: Args<GroupFilter & Slice>, c: GqlContext) =>
      shapeGroups(c.env, c.db, c.caller, slicePage(await candidateGroups(c.db, c.caller, args), args)),
    orgs: async (_: unknown, args: Args<Slice>, c: GqlContext) =>
      shapeGroups(c.env, c.db, c.caller, slicePage(await candidateOrgs(c.db, c.caller), args)),
  },
  Me: {
    username: (m: Me) => m.user.username,
    timezone: (m: Me) => m.user.timezone,
    email: (m: Me) => m.user.email,
    founder: async (m: Me) => (await m.groups()).founder,
    admin: async (m: Me) => (await m.groups()).admin,
    superuser: async (m: Me) => (await m.groups()).superuser,
    member: async (m: Me) => (await m.groups()).member,
    founders: async (m: Me) => (await m.groups()).founder,
    admins: async (m: Me) => (await m.groups()).admin,
    superusers: async (m: Me) => (await m.groups()).superuser,
    members: async (m: Me) => (await m.groups()).member,
    tokens: async (m: Me, args: Args<Slice>, c: GqlContext) =>
      slicePage((await listTokens(c.db, c.env, m.user.id, now(), firstPage())).items, args),
    webhooks: async (m: Me, args: Args<Slice>, c: GqlContext) => slicePage(await endpointsOf(c.db, m.user.id), args),
    docs: mine('doc'),
    grids: mine('grid'),
    mails: mine('mail'),
    jobs: mine('job'),
    plots: mine('plot'),
  },
  User: {
    type: (u: PersonRow) => u.account,
    // Users also arrive through rosters and mentions: the profile shows only where profileShown.
    name: (u: PersonRow, _: unknown, c: GqlContext) => (profileShown(u, c.caller) ? u.name : ''),
    bio: (u: PersonRow, _: unknown, c: GqlContext) => (profileShown(u, c.caller) ? u.bio : ''),
    relationship: () => ({
      orgs: false,
      groups: false,
      follower: false,
      connected: false,
      following: false,
      ignoring: false,
    }),
    social: () => ({ followers: 0, following: 0, connections: 0 }),
    docs: ownedBy('doc'),
    grids: ownedBy('grid'),
    mails: ownedBy('mail'),
    jobs: ownedBy('job'),
    plots: ownedBy('plot'),
    repos: none,
  },
  Topic: topicFields,
  Comment: commentFields,
  Item: {
    __resolveType: (i: Item) => ({ doc: 'Doc', grid: 'Grid', mail: 'Mail', job: 'Job', plot: 'Plot' })[i.kind.kind],
  },
  Doc: itemFields,
  Grid: itemFields,
  Plot: itemFields,
  Mail: {
    ...itemFields,
    enabled,
    sends: (i: Item, _: unknown, c: GqlContext) => c.loaders.sendsOfMail.load(i.row.id),
  },
  Job: {
    ...itemFields,
    ...jobFields,
    enabled,
    schedule: (i: Item) => textOrNull(entryOf(i, 'config/schedule')),
    last_run: (i: Item, _: unknown, c: GqlContext) => lastRunOf(c, i),
  },
  Group: {
    // An organisation's id is its name, as the clients' own fixtures and `-O <org>` commands have it; its groups
    // inside it their own names; every other group its reference.
    id: (g: GqlGroup) => (g.inOrg || g.info.kind === 'org' ? g.info.name : g.info.ref),
    name: (g: GqlGroup) => g.info.name,
    type: (g: GqlGroup) => g.info.kind,
    parent_group: (g: GqlGroup) => g.info.org,
    description: (g: GqlGroup) => g.info.description,
    profile: (g: GqlGroup) => (g.info.profile ? { name: g.info.profile.name, description: g.info.description } : null),
    options: (g: GqlGroup, _: unknown, c: GqlContext) => (g.profile ? c.loaders.options.load(g.group.id) : null),
    role: (g: GqlGroup) => g.info.role || null,
    email: (g: GqlGroup) => g.info.email,
    member_count: (g: GqlGroup) => g.info.members?.filter((m) => m.state === 'active').length ?? null,
    roster: (g: GqlGroup) =>
      g.info.members?.map((m) => ({ username: m.username, role: m.role, pending: m.state === 'pending' })) ?? null,
    public: flag('public'),
    is_open: flag('is_open'),
    enable_subdomain: flag('enable_subdomain'),
    allow_inbound_mail: flag('allow_inbound_mail'),
    mail_verify_spf: flag('mail_verify_spf'),
    mail_verify_dkim: flag('mail_verify_dkim'),
    created: (g: GqlGroup) => rfc2822(g.group.created_on),
    founders: (g: GqlGroup, _: unknown, c: GqlContext) => rosterUsers(g, 'founders', 'active', c),
    admins: (g: GqlGroup, _: unknown, c: GqlContext) => rosterUsers(g, 'admins', 'active', c),
    superusers: (g: GqlGroup, _: unknown, c: GqlContext) => rosterUsers(g, 'superusers', 'active', c),
    members: (g: GqlGroup, _: unknown, c: GqlContext) => rosterUsers(g, 'members', 'active', c),
    invited: (g: GqlGroup) => g,
    groups: (g: GqlGroup, _: unknown, c: GqlContext) =>
      g.group.kind === 'org' ? c.loaders.groupsOfOrg.load(g.group.id) : [],
    docs: sharedWith('doc'),
    grids: sharedWith('grid'),
    mails: sharedWith('mail'),
    jobs: sharedWith('job'),
    plots: sharedWith('plot'),
    repos: none,
    // The threads of a group are for its insiders (REST: 404 for everyone else).
    topics: (g: GqlGroup, _: unknown, c: GqlContext) => (g.insider ? c.loaders.topicsOfGroup.load(g.group.id) : []),
  },
  Invited: {
    admins: (g: GqlGroup, _: unknown, c: GqlContext) => rosterUsers(g, 'admins', 'pending', c),
    superusers: (g: GqlGroup, _: unknown, c: GqlContext) => rosterUsers(g, 'superusers', 'pending', c),
    members: (g: GqlGroup, _: unknown, c: GqlContext) => rosterUsers(g, 'members', 'pending', c),
  },
};

/** The executable schema, built on first use (not at module load: the Worker's startup). */
let built: GraphQLSchema | undefined;
export const gqlSchema = (): GraphQLSchema =>
  (built ??= executableSchema(typeDefs, resolvers as unknown as ResolverMap));
