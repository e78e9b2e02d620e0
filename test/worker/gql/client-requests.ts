/**
 * Every GraphQL request the command line and the python library send, with the variables
 * they send, for the world of fixtures.ts: [what the user typed, query, variables].
 */
import {
  crossVars,
  getGroupTopics,
  getTopics,
  JOB_FIELDS,
  LIST_ORG_GROUP_MEMBERS_QUERY,
  LIST_ORG_GROUPS_QUERY,
  LIST_ORG_MEMBERS_QUERY,
  LIST_ORGS_QUERY,
  LIST_USERS_QUERY,
  ME_TIMEZONE,
  meList,
  orgGroupVis,
  REPLY_DEPTHS,
  rootList,
  VIS_FIELDS,
} from './client-queries';
import type { World } from './fixtures';

type Row = Record<string, unknown>;
export type ClientRequest = [string, string, Row | undefined];

/** The item listings the client sends (`novem -d -l`, `-g`, `-m`, `-j`). */
export const LISTED_KINDS = ['docs', 'grids', 'mails', 'jobs'] as const;
export const ALL_KINDS = ['plots', 'grids', 'mails', 'docs', 'repos', 'jobs'] as const;
const fieldsOf = (kind: string) => (kind === 'jobs' ? JOB_FIELDS : VIS_FIELDS);

/** The client's item listings: the caller's own (`-l`) and another user's (`-l -u <user>`). */
export function listRequests(w: World): ClientRequest[] {
  return [
    ...LISTED_KINDS.map((k): ClientRequest => [`novem -${k[0]} -l`, meList(k, fieldsOf(k)), undefined]),
    ...LISTED_KINDS.map((k): ClientRequest => [
      `novem -${k[0]} -l -u <user>`,
      rootList(k, fieldsOf(k)),
      { author: w.owner.username },
    ]),
  ];
}

/** Each request the client sends. */
export function clientRequests(w: World): ClientRequest[] {
  const org = { orgId: w.org };
  return [
    ...listRequests(w),
    ['timezone', ME_TIMEZONE, undefined],
    ['novem -u -l', LIST_USERS_QUERY, undefined],
    ['novem -O -l', LIST_ORGS_QUERY, undefined],
    ['novem -O <org> -u -l', LIST_ORG_MEMBERS_QUERY, org],
    ['novem -O <org> -G -l', LIST_ORG_GROUPS_QUERY, org],
    ['novem -O <org> -G <group> -u -l', LIST_ORG_GROUP_MEMBERS_QUERY, org],
    ...ALL_KINDS.map((k): ClientRequest => [`novem -O <org> -G <group> -${k[0]} -l (${k})`, orgGroupVis(k), org]),
    ...REPLY_DEPTHS.flatMap((depth) =>
      (['docs', 'grids', 'mails'] as const).map((k): ClientRequest => [
        `novem -${k[0]} <name> --comments (replies ${depth} deep)`,
        getTopics(k, depth),
        { id: w.names.team, author: w.owner.username },
      ]),
    ),
    ...REPLY_DEPTHS.map((depth): ClientRequest => [
      `novem -G <group> --comments (replies ${depth} deep)`,
      getGroupTopics(depth),
      { name: 'sales', type: 'org_group', parent_group: w.org },
    ]),
    ['variables a comment embeds', crossVars([{ user: w.owner.username, field: 'docs', id: w.names.team }]), undefined],
  ];
}
