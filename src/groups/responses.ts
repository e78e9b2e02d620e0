/** Response bodies of the groups area, as the OpenAPI document describes them. */
import { z } from 'zod';
import { ROLES } from '../db/schema';

/** The group info object (visibility.ts builds it). */
export const infoSchema = z.object({
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
});

/** A membership after a role change or an answer to an invite. */
export const membershipSchema = z.object({
  group: z.string(),
  username: z.string(),
  role: z.enum(ROLES),
  state: z.enum(['pending', 'active', 'declined']),
});
