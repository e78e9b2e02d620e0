/** Response bodies of the groups area, as the OpenAPI document describes them. */
import * as z from 'zod';
import { listingSchema } from '../core/listing';
import { ROLES } from '../db/schema';
import { once } from '../core/once';

/** What a group info object reads like: an organisation group seen by one of its members. */
const GROUP_EXAMPLE = {
  name: 'analysts',
  ref: '+acme~analysts',
  kind: 'org_group',
  org: 'acme',
  uri: '/v1/admin/orgs/acme/groups/analysts',
  description: 'The analysts of Acme: dashboards and the weekly numbers.',
  profile: { name: 'Analysts', picture: { image: null, banner: null, mask: null } },
  role: 'members',
  members: [
    { username: 'alice', role: 'founders', state: 'active' },
    { username: 'bob', role: 'members', state: 'active' },
  ],
  shared: [],
  email: null,
} as const;

/** The group info object (visibility.ts builds it). */
export const infoSchema = once(() =>
  z
    .object({
      name: z.string(),
      ref: z.string(),
      kind: z.enum(['user_group', 'org', 'org_group']),
      org: z.string().nullable(),
      uri: z.string(),
      description: z.string().nullable(),
      profile: z.unknown(),
      role: z.string(),
      members: z.array(z.object({ username: z.string(), role: z.string(), state: z.string() })).nullable(),
      shared: z.array(z.unknown()),
      email: z.string().nullable(),
    })
    .meta({
      id: 'Group',
      description: 'A group (a user group, an organisation or one of its groups) as the caller may see it',
      example: GROUP_EXAMPLE,
    }),
);

/** An organisation with the groups the caller sees in it. */
export const orgSchema = once(() =>
  infoSchema()
    .extend({ groups: listingSchema() })
    .meta({
      id: 'Organisation',
      description: 'An organisation (a group info object) with the groups of it the caller may see',
      example: {
        ...GROUP_EXAMPLE,
        name: 'acme',
        ref: '+acme',
        kind: 'org',
        org: null,
        uri: '/v1/admin/orgs/acme',
        description: 'Acme Corporation',
        profile: {
          name: 'Acme',
          picture: { image: '/v1/admin/orgs/acme/profile/picture/image', banner: null, mask: null },
        },
        groups: [
          {
            name: 'analysts',
            uri: '/v1/orgs/acme/groups/analysts',
            type: 'dir',
            permissions: ['r'],
            actions: ['GET'],
            created_on: '2025-06-01T10:00:00.000Z',
            last_modified: '2025-09-12T14:22:31.940Z',
          },
        ],
      },
    }),
);

/** A membership after a role change or an answer to an invite. */
export const membershipSchema = once(() =>
  z
    .object({
      group: z.string(),
      username: z.string(),
      role: z.enum(ROLES),
      state: z.enum(['pending', 'active', 'declined']),
    })
    .meta({
      id: 'Membership',
      description: "A user's role in a group and whether it is held, invited or declined",
      example: { group: '+acme~analysts', username: 'bob', role: 'members', state: 'pending' },
    }),
);
