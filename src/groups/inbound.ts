/** Inbound org-group addresses (contract; the groups area implements it). */
import type { Db } from '../core/context';
import type { Group } from '../db/schema';

/**
 * The organisation group behind `<group>@<org>.<ORG_MAIL_DOMAIN>`, only when the org has
 * its mail subdomain enabled and the group accepts inbound mail; otherwise null.
 */
export async function groupForInboundAddress(env: Env, db: Db, address: string): Promise<{ group: Group; org: Group } | null> {
  void env;
  void db;
  void address;
  return null;
}
