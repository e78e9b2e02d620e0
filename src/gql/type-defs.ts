/** The GraphQL schema's SDL: the types and fields the client contract's queries use (resolvers in schema.ts). */

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

  "Plots are out of scope of this platform: every list of them is empty. The type has every item field, so the client's queries validate."
  type Plot implements Item {
    ${ITEM_FIELDS}
  }

  "Repositories are out of scope of this platform: every list of them is empty. The type has every item field, so the client's queries validate."
  type Repo implements Item {
    ${ITEM_FIELDS}
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

  "A comment topic (a thread, src/core/thread/)."
  type Topic {
    topic_id: ID!
    "The slug its author chose (PUT .../threads/<slug>); addressed as @<creator>~<slug>."
    slug: String!
    "The topic's own text (POST .../threads/@<creator>~<slug>/msg); empty until written."
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
    "Its text was rewritten."
    edited: Boolean!
    created: String!
    "The latest write: the topic's text or any comment's, replies included."
    updated: String!
    creator: Author
    mentions: [Mention!]!
    "Comments on the topic itself (not replies), oldest first."
    comments: [Comment!]!
  }

  type Comment {
    comment_id: ID!
    "The slug its author chose (PUT .../comments/<slug>; addressed as @<creator>~<slug>); the comment id for comments added without one."
    slug: String!
    message: String!
    "0 for a comment on the topic, +1 per reply level."
    depth: Int!
    deleted: Boolean!
    "Its text was rewritten."
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
    "The group reference (@user~group, +org~group, +org); among an organisation's groups, the group's own name."
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
