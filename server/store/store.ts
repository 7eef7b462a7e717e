/**
 * What the service needs from a database. Implementations are async and know
 * nothing of HTTP; records are the contract's own shapes, so no type here
 * repeats one.
 */
import type { components } from '../../generated/workspace/types.js';
import type { ApiKeyRecord } from '../auth/api-keys.js';

export type User = components['schemas']['User'];
export type Group = components['schemas']['Group'];
export type SortableField = NonNullable<components['schemas']['GetUsersRequest']['sort_by']>;

/** Profile fields a client may set; `user_id`, `realm` and `groups` are deliberately absent (no mass assignment). */
export type UserProfile = Pick<User, 'username' | 'first_name' | 'last_name' | 'phone' | 'organization' | 'locked' | 'disabled'>;

export interface NewUserRecord extends UserProfile {
  user_id: string;
  password_hash: string | null;
  created: string;
}

/** A partial update: only the fields present change. */
export interface UserChanges extends Partial<UserProfile> {
  password_hash?: string;
  password_set_date?: string;
}

/** A place in the order of a listing: a user's value of the sort field, and its user_id for ties. */
export interface SortPosition {
  value: string;
  userId: string;
}

export interface UserQuery {
  pageSize: number;
  sortBy: SortableField;
  sortDirection: 'asc' | 'desc';
  /** Where the page starts: after skipping this many users, or right after this position. */
  start: { skip: number } | { after: SortPosition };
  /** Whether to count every user too (default true); a listing read batch by batch counts only once. */
  countTotal?: boolean;
}

export interface UserListing {
  users: User[];
  /** How many users there are in all; -1 when not counted (`countTotal: false`). */
  total: number;
  /** Whether any user follows the last one of this page. */
  more: boolean;
}

/** A stored username that breaks the username profile, kept as it was so that no user is lost. */
export interface UsernameReport {
  user_id: string;
  username: string;
  reason: string;
  reported: string;
}

export type MembershipChange = 'done' | 'no_user' | 'no_group' | 'already_member' | 'not_member' | 'system_group';

/** Thrown when a unique name (a username, a group name) is already in use. */
export class NameTakenError extends Error {
  constructor(readonly field: 'username' | 'group_name') {
    super(`${field} is already taken`);
    this.name = 'NameTakenError';
  }
}

export interface Store {
  listUsers(query: UserQuery): Promise<UserListing>;
  findUserById(userId: string): Promise<User | undefined>;
  findUserByUsername(username: string): Promise<User | undefined>;
  /** Creates the user in the system group "All Users". Throws NameTakenError. */
  createUser(user: NewUserRecord): Promise<User>;
  /** Applies the changes atomically; undefined when there is no such user. Throws NameTakenError. */
  updateUser(userId: string, changes: UserChanges): Promise<User | undefined>;
  deleteUser(userId: string): Promise<boolean>;
  /** The stored argon2id hash, for verifying a password; never leaves the service. */
  findPasswordHash(userId: string): Promise<string | null | undefined>;

  listGroups(): Promise<Group[]>;
  /** Throws NameTakenError. */
  createGroup(group: { group_id: string; name: string }): Promise<Group>;
  /** Deletes a group and its memberships; the system group cannot be deleted. */
  deleteGroup(groupId: string): Promise<'deleted' | 'no_group' | 'system_group'>;
  addUserToGroup(userId: string, groupId: string): Promise<MembershipChange>;
  removeUserFromGroup(userId: string, groupId: string): Promise<MembershipChange>;

  insertApiKey(key: ApiKeyRecord): Promise<void>;
  /** Inserts the key only when no key exists yet; tells whether it did. */
  insertFirstApiKey(key: ApiKeyRecord): Promise<boolean>;
  findApiKey(apiKey: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when there is no such key or it was revoked already. */
  revokeApiKey(apiKey: string, when: string): Promise<boolean>;

  /** Usernames stored before the username profile that it refuses (migration 0003). */
  listUsernameReports(): Promise<UsernameReport[]>;

  /** Throws when the database cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
