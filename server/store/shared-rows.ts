/**
 * What the user and group repositories both write and read: a row's next
 * version, and users' memberships. Kept apart so that neither repository
 * imports the other.
 */
import { sql } from 'kysely';
import type { DatabaseTraits, Db } from './database-traits.js';

/** Moves a record's version: every write that changes what a user's or group's representation shows sets these. */
export const nextVersion = (modified: string) => ({ version: sql<number>`version + 1`, modified });

export type MembershipRow = { user_id: string; group_id: string; name: string };

/** The groups of these users, by name (the user repository reads them with each user). */
export function membershipsQuery(db: Db, userIds: string[]) {
  return db
    .selectFrom('user_groups')
    .innerJoin('groups', 'groups.group_id', 'user_groups.group_id')
    .select(['user_groups.user_id', 'groups.group_id', 'groups.name'])
    .where('user_groups.user_id', 'in', userIds)
    .orderBy('groups.name');
}

/**
 * A user's groups as `[group_id, name]` pairs by name, as membershipsQuery gives them, read in
 * the statement that reads (or updates) the user's row: one statement answers a user whole.
 */
export function groupsOfUser(traits: Pick<DatabaseTraits, 'jsonPairs'>) {
  const pairs = traits.jsonPairs(sql.ref('groups.group_id'), sql.ref('groups.name'), sql.ref('groups.name'));
  return sql`(select ${pairs} from user_groups inner join groups on groups.group_id = user_groups.group_id
    where user_groups.user_id = users.user_id)`.as('member_of');
}
