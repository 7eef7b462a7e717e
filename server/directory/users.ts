/**
 * Users: every door creates, changes and deletes them here, so that the
 * username profile, the password policy and its hashing, versions and the
 * store's refusals are applied one way whichever door a change comes through.
 */
import { hashPassword, isPasswordOf } from '../password/hashing.js';
import { passwordPolicyViolation } from '../password/policy.js';
import {
  type ChangeAuthor,
  type Email,
  type ExpectedVersions,
  type StoredUser,
  type StoredUserFields,
  type UserChanges,
  type UserListing,
  type UserProfile,
  type UserQuery,
  type UserSearch,
  type UserSearchResult,
} from '../store/records.js';
import type { Store } from '../store/repositories.js';
import { InvalidFilterError } from '../store/scim-filter.js';
import { enforceUsername, prepareUsername } from '../username/profile.js';
import { DirectoryError, refuse, refusingStoreErrors } from './errors.js';
import { canonicalId, newId } from './ids.js';
import { writeAtVersionRead } from './versioned-write.js';

/** A change to a user: only the fields given change. A password is given in the clear and stored only as its hash. */
export interface UserChange extends Partial<UserProfile> {
  password?: string;
  /** The identity provider's id for the user (SCIM's externalId); null takes it away. */
  external_id?: string | null;
  emails?: Email[];
}

/** A new user: a username, and whatever else is known; the rest starts empty (no password: none set). */
export interface NewUser extends UserChange {
  username: string;
}

/** The user a request names: by id (any accepted form), else by username. */
export type UserReference = { userId: string } | { username: string };

/** The stored form of a username, or a refusal saying which rule of the profile it breaks. */
function acceptedUsername(username: string): string {
  const verdict = enforceUsername(username);
  return verdict.ok ? verdict.username : refuse({ kind: 'invalid_username', reason: verdict.reason });
}

/** The words a password is screened against: the user's as they will be after the change. */
type Names = Pick<UserProfile, 'username' | 'first_name' | 'last_name'>;

/** Refuses a password the policy refuses, screened against the user's names as they will be. */
function assertPasswordPolicy(password: string, { username, first_name, last_name }: Names): void {
  const violation = passwordPolicyViolation(password, { username, firstName: first_name, lastName: last_name });
  if (violation) refuse({ kind: 'weak_password', reason: violation });
}

const refusing = <T>(write: () => Promise<T>) => refusingStoreErrors('user', write);
/** At the version read: a lost race is left to writeAtVersionRead, which reads again and retries. */
const refusingTakenName = <T>(write: () => Promise<T>) => refusingStoreErrors('user', write, { leavingLostRaces: true });

const notFound = (): never => refuse({ kind: 'not_found', entity: 'user' });

const PLAIN_FIELDS = ['first_name', 'last_name', 'phone', 'organization', 'locked', 'disabled', 'external_id'] as const;

/** What `change` sets of `current`, only where it differs (so that a change to nothing writes nothing, and events name only what changed). */
function differences({ record, directory }: StoredUserFields, change: UserChange): UserChange {
  const differing: UserChange = {};
  const now = { ...record, ...directory } as Record<string, unknown>;
  if (change.username !== undefined && change.username !== record.username) differing.username = change.username;
  for (const field of PLAIN_FIELDS) {
    if (change[field] !== undefined && change[field] !== now[field]) Object.assign(differing, { [field]: change[field] });
  }
  if (change.emails !== undefined && JSON.stringify(change.emails) !== JSON.stringify(directory.emails)) differing.emails = change.emails;
  if (change.password !== undefined) differing.password = change.password;
  return differing;
}

/** How many of a user's latest passwords a new one may not repeat, when the operator sets none (PASSWORD_HISTORY). */
export const DEFAULT_PASSWORD_HISTORY = 5;

export interface UserDirectoryOptions {
  /** How many of a user's latest passwords a new one may not repeat (PASSWORD_HISTORY); 0 keeps none. */
  passwordHistory?: number;
}

export function userDirectory(store: Store, { passwordHistory = DEFAULT_PASSWORD_HISTORY }: UserDirectoryOptions = {}) {
  /** Refuses a password that is one of the user's latest; each is compared by its hash, off the event loop. */
  const assertNotReused = async (userId: string, password: string): Promise<void> => {
    const hashes = await store.users.recentPasswordHashes(userId, passwordHistory);
    const matches = await Promise.all(hashes.map((passwordHash) => isPasswordOf(passwordHash, password)));
    if (matches.includes(true))
      refuse({
        kind: 'password_reused',
        reason: `must not be one of the user's last ${passwordHistory} passwords: choose one not used before`,
      });
  };

  /**
   * A replacement that restates the password the user has leaves it as it is: identity providers
   * may send the password with every replacement, which is no change of it and no reuse. (An
   * update asks for a change, and the same password there is refused as reused.) Known only
   * while the history keeps passwords: its newest is the current one.
   */
  const withoutCurrentPassword = async (userId: string, change: UserChange): Promise<UserChange> => {
    if (change.password === undefined || passwordHistory === 0) return change;
    const [current] = await store.users.recentPasswordHashes(userId, 1);
    if (current === undefined || !(await isPasswordOf(current, change.password))) return change;
    const { password: _unchanged, ...rest } = change;
    return rest;
  };

  /** The store's changes for `change`: the username in its stored form, the password checked and hashed. */
  const storedChanges = async (change: UserChange, currentNames: () => Promise<Names>, userId: string): Promise<UserChanges> => {
    const { password, username, ...fields } = change;
    const changes: UserChanges = { ...fields };
    if (username !== undefined) changes.username = acceptedUsername(username);
    if (password !== undefined) {
      const current = await currentNames();
      assertPasswordPolicy(password, {
        username: changes.username ?? current.username,
        first_name: changes.first_name ?? current.first_name,
        last_name: changes.last_name ?? current.last_name,
      });
      await assertNotReused(userId, password);
      changes.password_hash = await hashPassword(password);
      changes.passwords_kept = passwordHistory;
      changes.password_set_date = new Date().toISOString();
    }
    return changes;
  };

  const find = async (reference: UserReference): Promise<StoredUser> =>
    ('userId' in reference
      ? await store.users.findById(canonicalId(reference.userId))
      : await store.users.findByUsername(prepareUsername(reference.username))) ?? notFound();

  return {
    find,

    /**
     * A page of users in a listing's order; with `matching`, of the users whose username or
     * name contains it in any case, its spaces at either end left out (nothing left: every user);
     * with `memberOf`, of a group's members (its id in any form the directory takes).
     */
    list: (query: UserQuery): Promise<UserListing> => {
      const matching = query.matching?.trim();
      return store.users.list({
        ...query,
        matching: matching ? matching : undefined,
        memberOf: query.memberOf === undefined ? undefined : canonicalId(query.memberOf),
      });
    },

    /** The users a SCIM filter matches; a filter the directory cannot run is refused as `invalid_filter`. */
    async search(query: UserSearch): Promise<UserSearchResult> {
      try {
        return await store.users.search(query);
      } catch (error) {
        if (error instanceof InvalidFilterError) throw new DirectoryError({ kind: 'invalid_filter', reason: error.message });
        throw error;
      }
    },

    async create(user: NewUser, by: ChangeAuthor): Promise<StoredUser> {
      const username = acceptedUsername(user.username);
      if (user.password !== undefined)
        assertPasswordPolicy(user.password, { username, first_name: user.first_name ?? '', last_name: user.last_name ?? '' });
      return refusing(async () =>
        store.users.create(
          {
            user_id: newId(),
            username,
            first_name: user.first_name ?? '',
            last_name: user.last_name ?? '',
            phone: user.phone ?? '',
            organization: user.organization ?? '',
            locked: user.locked ?? false,
            disabled: user.disabled ?? false,
            external_id: user.external_id ?? null,
            emails: user.emails ?? [],
            password_hash: user.password === undefined ? null : await hashPassword(user.password),
            created: new Date().toISOString(),
          },
          by,
        ),
      );
    },

    /**
     * Writes what `change` gives, atomically, moving the user's version; refused when the user
     * is at none of the `expected` versions (If-Match).
     */
    async update(userId: string, change: UserChange, by: ChangeAuthor, expected?: ExpectedVersions): Promise<StoredUser> {
      const id = canonicalId(userId);
      const changes = await storedChanges(
        change,
        async () => {
          // Read first only for a password: hashing costs tens of milliseconds, not worth spending on a missing or stale user.
          const stored = (await store.users.findById(id)) ?? notFound();
          if (expected && !expected.includes(stored.version)) refuse({ kind: 'stale_version', entity: 'user', current: stored.version });
          return stored.record;
        },
        id,
      );
      return (await refusing(() => store.users.update(id, changes, by, expected))) ?? notFound();
    },

    /**
     * Sets the user to what `rewrite` makes of it as read (a replacement), writing only what
     * differs, and only at the version read (versioned-write.ts). The user is read without its
     * groups, which no rewrite sets; a rewrite that changes nothing answers the user as found.
     */
    async rewrite(
      userId: string,
      rewrite: (current: StoredUserFields) => UserChange,
      by: ChangeAuthor,
      expected?: ExpectedVersions,
    ): Promise<StoredUser> {
      const id = canonicalId(userId);
      const written = await writeAtVersionRead<StoredUserFields, StoredUser | 'unchanged'>(
        expected,
        async () => (await store.users.findFieldsById(id)) ?? notFound(),
        async (current) => {
          const change = await withoutCurrentPassword(id, differences(current, rewrite(current)));
          const changes = await storedChanges(change, async () => current.record, id);
          if (Object.keys(changes).length === 0) return 'unchanged';
          return (await refusingTakenName(() => store.users.update(id, changes, by, [current.version]))) ?? notFound();
        },
        (current) => new DirectoryError({ kind: 'stale_version', entity: 'user', current }),
      );
      return written === 'unchanged' ? find({ userId: id }) : written;
    },

    async delete(userId: string, by: ChangeAuthor, expected?: ExpectedVersions): Promise<void> {
      if (!(await refusing(() => store.users.delete(canonicalId(userId), by, expected)))) notFound();
    },

    /** Ends the user's sessions: they are valid only from now on. The service issues none; it records when they became invalid. */
    async logout(userId: string, by: ChangeAuthor): Promise<StoredUser> {
      return (await store.users.logout(canonicalId(userId), new Date().toISOString(), by)) ?? notFound();
    },

    /** Usernames stored before the username profile that it refuses (migration 0003). */
    usernameReports: () => store.users.listUsernameReports(),
  };
}

export type UserDirectory = ReturnType<typeof userDirectory>;
