/**
 * What a key may read of what it did not ask for (OWASP API3:2023, broken
 * object property level authorization). A user's groups and a group's members
 * link the two kinds of record, so each answer would otherwise show the other
 * kind to a key that may not view it: a user's groups carry their names only
 * for a key that may view groups, a group's members their usernames only for
 * a key that may view users. The identifiers stay: they are what a key that
 * may change memberships works with, and they say nothing by themselves.
 *
 * Decided here for every door; each door leaves out, in its own wire, what a
 * sight does not include (docs/api.md, docs/scim.md).
 */
import type { GroupMember, GroupMembership, Permission, User } from '../store/records.js';

export interface Sight {
  /** Whether group names come with a user's groups (`groups_view`). */
  readonly groupNames: boolean;
  /** Whether usernames come with a group's members (`users_view`). */
  readonly usernames: boolean;
}

/** Everything: what a door reads when it computes a change rather than answering a key (a SCIM PATCH applied to the resource as stored). */
export const WHOLE_SIGHT: Sight = { groupNames: true, usernames: true };

export function sightOf(permissions: readonly Permission[]): Sight {
  return { groupNames: permissions.includes('groups_view'), usernames: permissions.includes('users_view') };
}

/** A membership as a key sees it: its group's name only when the key may view groups. */
export type SeenMembership = Omit<GroupMembership, 'name'> & { name?: string };
export type SeenUser = Omit<User, 'groups'> & { groups: SeenMembership[] };
/** A member as a key sees it: the username only when the key may view users. */
export type SeenMember = Omit<GroupMember, 'username'> & { username?: string };

export function userAsSeen(user: User, sight: Sight): SeenUser {
  return sight.groupNames ? user : { ...user, groups: user.groups.map(({ group_id }) => ({ group_id })) };
}

export function membersAsSeen(members: readonly GroupMember[], sight: Sight): SeenMember[] {
  return sight.usernames ? [...members] : members.map(({ username: _hidden, ...member }) => member);
}
