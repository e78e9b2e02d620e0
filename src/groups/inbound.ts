/** Inbound org-group addresses: `<group>@<org>.<ORG_MAIL_DOMAIN>`. */
import { and, eq, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../core/context';
import { groups, type Group } from '../db/schema';
import { groupByRef } from './members';
import { groupEntries } from './schema';
import { inboundAddress, orgGroupRef, orgRef, parseInboundAddress } from './model';
import { optionIsOn } from './profile';

/** Whether mail reaches an org group: its org has the mail subdomain enabled and the group accepts inbound mail. */
async function receivesMail(db: Db, org: Group, group: Group): Promise<boolean> {
  const [orgOn, groupOn] = await Promise.all([
    optionIsOn(db, org.id, 'enable_subdomain'),
    optionIsOn(db, group.id, 'allow_inbound_mail'),
  ]);
  return orgOn && groupOn;
}

/**
 * The organisation group behind `<group>@<org>.<ORG_MAIL_DOMAIN>`, only when the org has
 * its mail subdomain enabled and the group accepts inbound mail; otherwise null.
 */
export async function groupForInboundAddress(
  env: Env,
  db: Db,
  address: string,
): Promise<{ group: Group; org: Group } | null> {
  const parsed = parseInboundAddress(address, env.ORG_MAIL_DOMAIN);
  if (!parsed) return null;
  const [org, group] = await Promise.all([
    groupByRef(db, orgRef(parsed.org)),
    groupByRef(db, orgGroupRef(parsed.org, parsed.group)),
  ]);
  if (!org || !group || group.kind !== 'org_group' || group.parent_id !== org.id) return null;
  return (await receivesMail(db, org, group)) ? { group, org } : null;
}

/**
 * What the inbound address of an org group depends on (its organisation, the org's
 * subdomain option and the group's inbound mail option), as queries to batch with the
 * group's load (GroupPreload; `groupId` is SQL naming the group): see inboundAddressFrom.
 */
export function inboundAddressReads(db: Db, groupId: SQL) {
  const orgId = sql`(select ${groups.parent_id} from ${groups} where ${groups.id} = ${groupId})`;
  return [
    db.select().from(groups).where(eq(groups.id, orgId)),
    db
      .select({ group_id: groupEntries.group_id, path: groupEntries.path, value: groupEntries.value })
      .from(groupEntries)
      .where(
        or(
          and(eq(groupEntries.group_id, orgId), eq(groupEntries.path, 'options/enable_subdomain')),
          and(eq(groupEntries.group_id, groupId), eq(groupEntries.path, 'options/allow_inbound_mail')),
        ),
      ),
  ];
}

/**
 * The inbound address of an org group when its org and it are mail-enabled, else null, from the rows of
 * inboundAddressReads.
 */
export function inboundAddressFrom(env: Env, group: Group, rows: unknown[][]): string | null {
  if (group.kind !== 'org_group' || group.parent_id === null) return null;
  const [orgRows, optionRows] = rows as [Group[], { group_id: number; path: string; value: string | null }[]];
  const org = orgRows[0];
  if (!org) return null;
  const on = (id: number, path: string) =>
    optionRows.some((r) => r.group_id === id && r.path === path && r.value === 'yes');
  return on(org.id, 'options/enable_subdomain') && on(group.id, 'options/allow_inbound_mail')
    ? inboundAddress(org.slug, group.slug, env.ORG_MAIL_DOMAIN)
    : null;
}
