/** Inbound org-group addresses: `<group>@<org>.<ORG_MAIL_DOMAIN>`. */
import type { Db } from '../core/context';
import type { Group } from '../db/schema';
import { groupByRef } from './members';
import { orgGroupRef, orgRef, parseInboundAddress } from './model';
import { optionIsOn } from './profile';

/**
 * The organisation group behind `<group>@<org>.<ORG_MAIL_DOMAIN>`, only when the org has
 * its mail subdomain enabled and the group accepts inbound mail; otherwise null.
 */
export async function groupForInboundAddress(env: Env, db: Db, address: string): Promise<{ group: Group; org: Group } | null> {
  const parsed = parseInboundAddress(address, env.ORG_MAIL_DOMAIN);
  if (!parsed) return null;
  const [org, group] = await Promise.all([groupByRef(db, orgRef(parsed.org)), groupByRef(db, orgGroupRef(parsed.org, parsed.group))]);
  if (!org || !group || group.kind !== 'org_group' || group.parent_id !== org.id) return null;
  const [orgOn, groupOn] = await Promise.all([optionIsOn(db, org.id, 'enable_subdomain'), optionIsOn(db, group.id, 'allow_inbound_mail')]);
  return orgOn && groupOn ? { group, org } : null;
}
