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
import { enabledFlag, page, rfc2822, tagInfo, textOrNull } from './values';
import { lastRunOf, runStats } from './jobs';
import { PERSON_COLUMNS, type PersonRow } from './people';
import { mentionsOf, type GqlComment, type GqlTopic } from './topics';
import { varsFromEntries } from '../docs/vars';
import { parseChains } from '../jobs/chains';

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
    "RFC 2822 with a literal UTC (Fri, 29 Nov 2024 09:39:33 UTC)."
    created: String!
    "Last change, RFC 2822 with a literal UTC."
    updated: String!
    public: Boolean!
    shared: [ShareTarget!]!
    tags: [Tag!]!
    "The owner."
    author: Author!
    social: ItemSocial!
    "Comment topics (threads), oldest comment first."
    topics: [Topic!]!
    "Document variables ([] for other kinds)."
    vars: [Var!]!`;
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
    docs(author: String, id: ID, limit: Int = 100, offset: Int = 0): [Doc!]!
    mails(author: String, id: ID, limit: Int = 100, offset: Int = 0): [Mail!]!
    grids(author: String, id: ID, limit: Int = 100, offset: Int = 0): [Grid!]!
    jobs(author: String, id: ID, limit: Int = 100, offset: Int = 0): [Job!]!
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
    "The same lists under the roles' plural names."
    founders: [Group!]!
    admins: [Group!]!
    superusers: [Group!]!
    members: [Group!]!
    "The caller's own resources (as the root listings without author; by default up to the largest page, as the client asks without paging)."
    docs(limit: Int = 1000, offset: Int = 0): [Doc!]!
    grids(limit: Int = 1000, offset: Int = 0): [Grid!]!
    mails(limit: Int = 1000, offset: Int = 0): [Mail!]!
    jobs(limit: Int = 1000, offset: Int = 0): [Job!]!
  }

  type User {
    username: String!
    "The account kind (user, organisation, ...); the same as type."
    account: String!
    public: Boolean!
    "Profile name (admin/profile/name)."
    name: String!
    "The account kind."
    type: String!
    bio: String!
    relationship: Relationship!
    social: UserSocial!
    "The user's resources the caller may read (all of them for the caller)."
    docs: [Doc!]!
    grids: [Grid!]!
    mails: [Mail!]!
    jobs: [Job!]!
    "Out of scope here: always []."
    plots: [Plot!]!
    repos: [Repo!]!
  }

  "The caller's relationship to a user (no follows here: all false)."
  type Relationship {
    orgs: Boolean!
    groups: Boolean!
    follower: Boolean!
    connected: Boolean!
    following: Boolean!
    ignoring: Boolean!
  }

  type UserSocial {
    followers: Int!
    following: Int!
    connections: Int!
  }

  type ItemSocial {
    "Views of the canonical page (not counted here: 0)."
    views: Int!
  }

  type Author {
    username: String!
  }

  "Plots are out of scope of this platform; the type exists for the client's queries."
  type Plot {
    id: ID!
    name: String
  }

  "Repositories are out of scope of this platform; the type exists for the client's queries."
  type Repo {
    id: ID!
    name: String
  }

  "A document variable (vars/<id>/...)."
  type Var {
    id: ID!
    value: String!
    format: String!
    type: String!
    threshold: String!
    about: String!
  }

  "A comment topic (a thread, src/core/threads.ts)."
  type Topic {
    topic_id: ID!
    slug: String!
    "Threads carry no text of their own: empty."
    message: String!
    audience: String!
    status: String!
    "Comments of the topic, replies included."
    num_comments: Int!
    num_likes: Int!
    num_dislikes: Int!
    likes: Int!
    dislikes: Int!
    my_reaction: String
    edited: Boolean!
    created: String!
    "The latest comment's time, replies included (the topic's own when it has none)."
    updated: String!
    creator: Author
    mentions: [Mention!]!
    "Comments on the topic itself (not replies), oldest first."
    comments: [Comment!]!
  }

  type Comment {
    comment_id: ID!
    "The comment id as REST names it: replies go to .../threads/@<user>~<topic>/comments/<slug>/msg."
    slug: String!
    message: String!
    "0 for a comment on the topic, +1 per reply level."
    depth: Int!
    deleted: Boolean!
    edited: Boolean!
    "Direct replies."
    num_replies: Int!
    likes: Int!
    dislikes: Int!
    my_reaction: String
    created: String!
    updated: String!
    creator: Author
    mentions: [Mention!]!
    "Direct replies, oldest first (each with its own replies, to any depth)."
    replies: [Comment!]!
  }

  "An @username in a message that names an account."
  type Mention {
    nonce: String!
    user: Author!
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
    "Status of the latest run (null without runs or when the caller may not read runs)."
    last_run_status: String
    "Start of the latest run, RFC 2822 with a literal UTC."
    last_run_time: String
    "Number of top-level runs (null when the caller may not read runs)."
    run_count: Int
    "Steps of the chain (config/chains); 1 for the job's own code."
    job_steps: Int!
    "The step a processing run is at; null unless a run is processing."
    current_step: Int
    "How the job has been or can be run: api, email, schedule."
    triggers: [String!]!
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
    "Accepted members (the roster's members role); [] when the roster is hidden."
    members: [User!]!
    "Number of accepted members (every role); null when the roster is hidden."
    member_count: Int
    roster: [RosterEntry!]
    "Options (yes/no entries) as booleans; null when the caller may not see the profile."
    public: Boolean
    is_open: Boolean
    enable_subdomain: Boolean
    allow_inbound_mail: Boolean
    mail_verify_spf: Boolean
    mail_verify_dkim: Boolean
    "RFC 2822 with a literal UTC."
    created: String!
    "The roster by role ([] when the roster is hidden)."
    founders: [User!]!
    admins: [User!]!
    superusers: [User!]!
    "Pending invitees by role (roster readers only; empty lists otherwise)."
    invited: Invited!
    "An organisation's groups the caller may see ([] for other groups)."
    groups: [Group!]!
    "Resources shared with the group that the caller can read (as GET /v1/o/<group ref>/<d|g|m|j>; org oversight reads no items)."
    docs: [Doc!]!
    grids: [Grid!]!
    mails: [Mail!]!
    jobs: [Job!]!
    plots: [Plot!]!
    repos: [Repo!]!
    "The group's comment threads (members and org oversight; [] otherwise)."
    topics: [Topic!]!
  }

  type Invited {
    admins: [User!]!
    superusers: [User!]!
    members: [User!]!
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

const enabled = (i: Item) => enabledFlag(entryOf(i, 'config/enabled'));

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
  return listItems(
    c,
    KINDS[kind],
    { author: args.author, id: args.id, limit: args.limit, offset: args.offset },
    {
      paths: [...new Set([...fields].filter((f) => f in ENTRY_FIELDS).map((f) => ENTRY_FIELDS[f]!))],
      shares: fields.has('public') || fields.has('shared') || RUN_FIELDS.some((f) => fields.has(f)),
      tags: fields.has('tags'),
      vars: fields.has('vars'),
    },
  );
};
/** The caller's own resources of a kind (`me { docs }`): the root listing without author. */
const mine = (kind: keyof typeof KINDS) => (_: Me, args: Args<ListArgs>, c: GqlContext, info: GraphQLResolveInfo) =>
  list(kind)(null, { limit: args.limit, offset: args.offset }, c, info);

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
async function rosterUsers(g: GqlGroup, role: string, state: 'active' | 'pending', c: GqlContext): Promise<PersonRow[]> {
  const names = (g.info.members ?? []).filter((m) => m.role === role && m.state === state).map((m) => m.username);
  const rows = await c.loaders.userByName.loadMany(names);
  return rows.filter((r): r is PersonRow => !!r && !(r instanceof Error));
}

const flag = (name: string) => async (g: GqlGroup, _: unknown, c: GqlContext) => (g.profile ? (await c.loaders.groupFlags.load(g.group.id)).has(name) : null);
// Items shared with a group the caller sees, those the caller can read (as GET /v1/o/<group ref>/<kind>).
const sharedWith = (kind: keyof typeof KINDS) => (g: GqlGroup, _: unknown, c: GqlContext) => c.loaders.itemsOfGroup(kind).load(g.group.id);
const ownedBy = (kind: keyof typeof KINDS) => (u: PersonRow, _: unknown, c: GqlContext) => c.loaders.itemsOfOwner(kind).load(u.id);
const none = () => [];

const topicFields = {
  topic_id: (t: GqlTopic) => t.id,
  slug: (t: GqlTopic) => t.topic,
  message: () => '',
  audience: (t: GqlTopic) => t.audience,
  status: () => 'open',
  num_comments: (t: GqlTopic) => t.all.length,
  num_likes: () => 0,
  num_dislikes: () => 0,
  likes: () => 0,
  dislikes: () => 0,
  my_reaction: () => null,
  edited: () => false,
  created: (t: GqlTopic) => rfc2822(t.created_on),
  updated: (t: GqlTopic) => rfc2822(t.all.at(-1)?.created_on ?? t.created_on),
  creator: (t: GqlTopic) => (t.creator ? { username: t.creator } : null),
  mentions: () => [],
  comments: (t: GqlTopic) => t.comments,
};

const commentFields = {
  comment_id: (m: GqlComment) => m.id,
  slug: (m: GqlComment) => String(m.id),
  message: (m: GqlComment) => m.text,
  depth: (m: GqlComment) => m.depth,
  deleted: () => false,
  edited: () => false,
  num_replies: (m: GqlComment) => m.replies.length,
  likes: () => 0,
  dislikes: () => 0,
  my_reaction: () => null,
  created: (m: GqlComment) => rfc2822(m.created_on),
  updated: (m: GqlComment) => rfc2822(m.created_on),
  creator: (m: GqlComment) => (m.author ? { username: m.author } : null),
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
      return c.db.select(PERSON_COLUMNS).from(users).where(and(where)).orderBy(asc(users.username)).limit(limit).offset(offset);
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
    founders: async (m: Me) => (await m.groups()).founder,
    admins: async (m: Me) => (await m.groups()).admin,
    superusers: async (m: Me) => (await m.groups()).superuser,
    members: async (m: Me) => (await m.groups()).member,
    docs: mine('doc'),
    grids: mine('grid'),
    mails: mine('mail'),
    jobs: mine('job'),
  },
  User: {
    type: (u: PersonRow) => u.account,
    relationship: () => ({ orgs: false, groups: false, follower: false, connected: false, following: false, ignoring: false }),
    social: () => ({ followers: 0, following: 0, connections: 0 }),
    docs: ownedBy('doc'),
    grids: ownedBy('grid'),
    mails: ownedBy('mail'),
    jobs: ownedBy('job'),
    plots: none,
    repos: none,
  },
  Topic: topicFields,
  Comment: commentFields,
  Item: {
    __resolveType: (i: Item) => ({ doc: 'Doc', grid: 'Grid', mail: 'Mail', job: 'Job' })[i.kind.kind],
  },
  Doc: itemFields,
  Grid: itemFields,
  Mail: { ...itemFields, enabled },
  Job: {
    ...itemFields,
    ...jobFields,
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
    member_count: (g: GqlGroup) => g.info.members?.filter((m) => m.state === 'active').length ?? null,
    roster: (g: GqlGroup) => g.info.members?.map((m) => ({ username: m.username, role: m.role, pending: m.state === 'pending' })) ?? null,
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
    groups: (g: GqlGroup, _: unknown, c: GqlContext) => (g.group.kind === 'org' ? c.loaders.groupsOfOrg.load(g.group.id) : []),
    docs: sharedWith('doc'),
    grids: sharedWith('grid'),
    mails: sharedWith('mail'),
    jobs: sharedWith('job'),
    plots: none,
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

export const schema = createSchema<GqlContext>({ typeDefs, resolvers: resolvers as never });
