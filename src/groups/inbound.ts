/** Inbound org-group addresses: `<group>@<org>.<ORG_MAIL_DOMAIN>`. */
import { eq } from 'drizzle-orm';
import type { Db } from '../core/context';
import { groups, type Group } from '../db/schema';
import { groupByRef } from './members';
import { inboundAddress, orgGroupRef, orgRef, parseInboundAddress } from './model';
import { optionIsOn } from './profile';

/** Whether mail reaches an org group: its org has the mail subdomain enabled and the group accepts inbound mail. */
async function receivesMail(db: Db, org: Group, group: Group): Promise<boolean> {
  const [orgOn, groupOn] = await Promise.all([optionIsOn(db, org.id, 'enable_subdomain'), optionIsOn(db, group.id, 'allow_inbound_mail')]);
  return orgOn && groupOn;
}

/**
 * The organisation group behind `<group>@<org>.<ORG_MAIL_DOMAIN>`, only when the org has
 * its mail subdomain enabled and the group accepts inbound mail; otherwise null.
 */
export async function groupForInboundAddress(env: Env, db: Db, address: string): Promise<{ group: Group; org: Group } | null> {
  const parsed = parseInboundAddress(address, env.ORG_MAIL_DOMAIN);
  if (!parsed) return null;
  const [org, group] = await Promise.all([groupByRef(db, orgRef(parsed.org)), groupByRef(db, orgGroupRef(parsed.org, parsed.group))]);
  if (!org || !group || group.kind !== 'org_group' || group.parent_id !== org.id) return null;
  return (await receivesMail(db, org, group)) ? { group, org } : null;
}

/** The inbound address of an org group when its org and it are mail-enabled, else null. */
export async function inboundAddressOf(env: Env, db: Db, group: Group): Promise<string | null> {
  if (group.kind !== 'org_group' || group.parent_id === null) return null;
  const org = await db.select().from(groups).where(eq(groups.id, group.parent_id)).get();
  if (!org) return null;
  return (await receivesMail(db, org, group)) ? inboundAddress(org.slug, group.slug, env.ORG_MAIL_DOMAIN) : null;
}
