/**
 * The GraphQL requests the platform's command line and python library (`novem`) send, as
 * they send them: the same text, whitespace included, and the same variable declarations.
 * Built here the way the client builds them (its field lists, its templates, its reply
 * depths), so a test can send exactly what a user's `novem -O -l` or `--comments` sends.
 */

/** The fields of every item listing (documents, grids, mails, jobs; plots and repos too). */
export const VIS_FIELDS = `
    id
    name
    type
    summary
    url
    updated
    public
    shared { id name type }
    tags { id name type }
    social { views }
    topics { num_comments num_likes num_dislikes }`;
/** Jobs: the item fields and the run and schedule fields. */
export const JOB_FIELDS = `${VIS_FIELDS}
    last_run_status
    last_run_time
    run_count
    job_steps
    current_step
    schedule
    triggers`;

/** `novem -d -l -u <user>` (and -g, -m, -j): another user's items the caller can read. */
export const rootList = (field: string, fields: string) =>
  `query List($author: String, $limit: Int, $offset: Int) {\n  ${field}(author: $author, limit: $limit, offset: $offset) {${fields}\n  }\n}`;

/** `novem -d -l` (and -g, -m, -j): the caller's own items. */
export const meList = (field: string, fields: string) =>
  `query Me {\n  me {\n    username\n    ${field} {${fields}\n    }\n  }\n}`;

/** The caller's timezone (dates in listings). */
export const ME_TIMEZONE = 'query { me { timezone } }';

/** `novem -u -l`: users. */
export const LIST_USERS_QUERY = `
query ListUsers($limit: Int, $offset: Int) {
  users(limit: $limit, offset: $offset) {
    username
    name
    type
    bio
    public
    relationship {
      orgs
      groups
      follower
      connected
      following
      ignoring
    }
    social {
      followers
      following
      connections
    }
    plots {
      id
    }
    grids {
      id
    }
    mails {
      id
    }
    docs {
      id
    }
    repos {
      id
    }
    jobs {
      id
    }
  }
}
`;

/** `novem -O -l`: the caller's organisations with their groups' items. */
export const LIST_ORGS_QUERY = `
query ListOrgs {
  me {
    founder {
      id
      type
      name
      public
      is_open
      enable_subdomain
      groups {
        id
        plots { id author { username } }
        grids { id author { username } }
        mails { id author { username } }
        docs { id author { username } }
        repos { id author { username } }
        jobs { id author { username } }
      }
      founders { username }
      admins { username }
      superusers { username }
      members { username }
      created
    }
    admin {
      id
      type
      name
      public
      is_open
      enable_subdomain
      groups {
        id
        plots { id author { username } }
        grids { id author { username } }
        mails { id author { username } }
        docs { id author { username } }
        repos { id author { username } }
        jobs { id author { username } }
      }
      founders { username }
      admins { username }
      superusers { username }
      members { username }
      created
    }
    superuser {
      id
      type
      name
      public
      is_open
      enable_subdomain
      groups {
        id
        plots { id author { username } }
        grids { id author { username } }
        mails { id author { username } }
        docs { id author { username } }
        repos { id author { username } }
        jobs { id author { username } }
      }
      founders { username }
      admins { username }
      superusers { username }
      members { username }
      created
    }
    member {
      id
      type
      name
      public
      is_open
      enable_subdomain
      groups {
        id
        plots { id author { username } }
        grids { id author { username } }
        mails { id author { username } }
        docs { id author { username } }
        repos { id author { username } }
        jobs { id author { username } }
      }
      founders { username }
      admins { username }
      superusers { username }
      members { username }
      created
    }
  }
}
`;

/** `novem -O <org> -u -l`: an organisation's members, invitees and its groups' items. */
export const LIST_ORG_MEMBERS_QUERY = `
query ListOrgMembers($orgId: ID!) {
  groups(id: $orgId, type: org) {
    id
    founders {
      username
      name
      type
      public
      relationship {
        follower
        connected
        following
        ignoring
      }
    }
    admins {
      username
      name
      type
      public
      relationship {
        follower
        connected
        following
        ignoring
      }
    }
    superusers {
      username
      name
      type
      public
      relationship {
        follower
        connected
        following
        ignoring
      }
    }
    members {
      username
      name
      type
      public
      relationship {
        follower
        connected
        following
        ignoring
      }
    }
    invited {
      admins {
        username
        name
        type
        public
        relationship {
          follower
          connected
          following
          ignoring
        }
      }
      superusers {
        username
        name
        type
        public
        relationship {
          follower
          connected
          following
          ignoring
        }
      }
      members {
        username
        name
        type
        public
        relationship {
          follower
          connected
          following
          ignoring
        }
      }
    }
    groups {
      id
      plots { id author { username } }
      grids { id author { username } }
      mails { id author { username } }
      docs { id author { username } }
      repos { id author { username } }
      jobs { id author { username } }
    }
  }
}
`;

/** `novem -O <org> -G -l`: an organisation's groups. */
export const LIST_ORG_GROUPS_QUERY = `
query ListOrgGroups($orgId: ID!) {
  groups(id: $orgId, type: org) {
    id
    groups {
      id
      name
      public
      is_open
      allow_inbound_mail
      mail_verify_spf
      mail_verify_dkim
      founders { username }
      admins { username }
      superusers { username }
      members { username }
      plots { id author { username } }
      grids { id author { username } }
      mails { id author { username } }
      docs { id author { username } }
      repos { id author { username } }
      jobs { id author { username } }
      created
    }
  }
}
`;

/** `novem -O <org> -G <group> -u -l`: one org group's members (picked by `id` from the organisation's groups). */
export const LIST_ORG_GROUP_MEMBERS_QUERY = `
query ListOrgGroupMembers($orgId: ID!) {
  groups(id: $orgId, type: org) {
    id
    groups {
      id
      name
      founders {
        username
        name
        type
        public
        relationship {
          follower
          connected
          following
          ignoring
        }
      }
      admins {
        username
        name
        type
        public
        relationship {
          follower
          connected
          following
          ignoring
        }
      }
      superusers {
        username
        name
        type
        public
        relationship {
          follower
          connected
          following
          ignoring
        }
      }
      members {
        username
        name
        type
        public
        relationship {
          follower
          connected
          following
          ignoring
        }
      }
      invited {
        admins {
          username
          name
          type
          public
          relationship {
            follower
            connected
            following
            ignoring
          }
        }
        superusers {
          username
          name
          type
          public
          relationship {
            follower
            connected
            following
            ignoring
          }
        }
        members {
          username
          name
          type
          public
          relationship {
            follower
            connected
            following
            ignoring
          }
        }
      }
      plots { id author { username } }
      grids { id author { username } }
      mails { id author { username } }
      docs { id author { username } }
      repos { id author { username } }
      jobs { id author { username } }
    }
  }
}
`;

const ORG_GROUP_ITEM_FIELDS = `
        id
        name
        type
        summary
        url
        updated
        public
        shared { id name type }
        tags { id name type }
        author { username }`;

/** `novem -O <org> -G <group> -d -l` (and -g, -m, -j): the items shared with one org group (picked by `id`). */
export const orgGroupVis = (visType: string) =>
  'query ListOrgGroupVis($orgId: ID!) {\n' +
  '  groups(id: $orgId, type: org) {\n' +
  '    id\n' +
  '    groups {\n' +
  '      id\n' +
  `      ${visType} {${ORG_GROUP_ITEM_FIELDS}${visType === 'jobs' ? '\n        last_run_time' : ''}\n` +
  '      }\n' +
  '    }\n' +
  '  }\n' +
  '}\n';

const COMMENT_FIELDS = `
    comment_id
    slug
    message
    depth
    deleted
    edited
    num_replies
    likes
    dislikes
    my_reaction
    created
    updated
    creator { username }
    mentions { nonce user { username } }
`;

/** A comment with `depth` levels of replies below it (the client asks 3, then 6, 9, 12 while replies are cut off). */
function commentFragment(depth: number): string {
  let fragment = COMMENT_FIELDS;
  for (let i = 0; i < depth; i++) fragment = `\n    ${COMMENT_FIELDS}\n    replies {${fragment}\n    }`;
  return fragment;
}

/** The depths the client asks for, one after the other, while a thread is deeper than what it got. */
export const REPLY_DEPTHS = [3, 6, 9, 12];

/** `novem -d <doc> --comments` (and -g, -m), and the library's `Context(...)`: an item's variables and threads. */
export const getTopics = (field: string, depth = 3) => `
query GetTopics($id: ID!, $author: String) {
  me { username }
  ${field}(id: $id, author: $author) {
    vars { id value format type threshold }
    topics {
      topic_id
      slug
      message
      audience
      status
      num_comments
      likes
      dislikes
      my_reaction
      edited
      created
      updated
      creator { username }
      mentions { nonce user { username } }
      comments {${commentFragment(depth)}
      }
    }
  }
}
`;

/**
 * `novem -G <group> --comments`: a group's threads (`type` user_group with parent_group the caller, or org_group with
 * the organisation).
 */
export const getGroupTopics = (depth = 3) => `
query GetGroupTopics($name: String!, $type: GroupType!, $parent_group: String) {
  me { username }
  groups(name: $name, type: $type, parent_group: $parent_group) {
    topics {
      topic_id
      slug
      message
      audience
      status
      num_comments
      likes
      dislikes
      my_reaction
      edited
      created
      updated
      creator { username }
      mentions { nonce user { username } }
      comments {${commentFragment(depth)}
      }
    }
  }
}
`;

/** Variables a comment embeds (`{/u/<user>/d/<doc>/v/<var>}`): one aliased query for every item named. */
export const crossVars = (refs: { user: string; field: string; id: string }[]) =>
  'query {\n' +
  refs
    .map(
      (r, i) =>
        `  vde_${i}: ${r.field}(id: "${r.id}", author: "${r.user}") { vars { id value format type threshold } }`,
    )
    .join('\n') +
  '\n}';
