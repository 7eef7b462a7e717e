/** The user lifecycle: getUsers, getUser, createUser, updateUser, deleteUser, logoutUser. */
import { randomBytes } from 'node:crypto';
import { ServiceError, userNotFound, usernameTaken, versionMismatch } from '../service-errors.js';
import { hashPassword } from '../password/hashing.js';
import { passwordPolicyViolation } from '../password/policy.js';
import { StaleVersionError, type UserChanges } from '../store/records.js';
import { enforceUsername, prepareUsername } from '../username/profile.js';
import { DEFAULT_GET_USERS_MAX, everyUser, listingTurns } from './every-user.js';
import { canonicalId } from './ids.js';
import { answeringTakenName } from './name-taken.js';
import type { Handlers, Services } from './types.js';
import { cursorAfter, invalidCursor, parseCursor } from './user-cursor.js';
import { present } from '../../lib/present.js';

/** The stored form of a new username, or 400 invalid_username saying which rule of the profile it breaks. */
export function acceptedUsername(username: string): string {
  const verdict = enforceUsername(username);
  if (!verdict.ok) {
    throw new ServiceError(400, 'invalid_username', `Username ${verdict.reason}`, [
      { path: '/body/target_user/username', message: verdict.reason },
    ]);
  }
  return verdict.username;
}

/**
 * The contract refuses most weak passwords already; what it cannot say (the
 * minimum in characters as a person sees them, the user's own name) is
 * checked here, with the rest of the policy.
 */
export function assertPasswordPolicy(password: string, username: string): void {
  const violation = passwordPolicyViolation(password, username);
  if (violation) {
    throw new ServiceError(400, 'weak_password', `Password ${violation}`, [{ path: '/body/target_user/password', message: violation }]);
  }
}

/** A write that `If-Match` conditions: a user at another version is answered 412. */
async function whenAtVersion<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof StaleVersionError) throw versionMismatch(error.current);
    throw error;
  }
}

const renamingConflictsAsTaken = <T>(write: () => Promise<T>) => answeringTakenName(write, usernameTaken);

export function userHandlers({
  store,
  getUsersMax = DEFAULT_GET_USERS_MAX,
}: Services): Pick<Handlers, 'getUsers' | 'getUser' | 'createUser' | 'updateUser' | 'deleteUser' | 'logoutUser'> {
  const turns = listingTurns();
  return {
    async getUsers(body) {
      // No page asked for: every user, as Kasm's get_users answers (every-user.ts).
      if (body.page === undefined && body.page_size === undefined && body.cursor === undefined) {
        return everyUser(store, turns, {
          sortBy: body.sort_by ?? 'username',
          sortDirection: body.sort_direction ?? 'asc',
          max: getUsersMax,
        });
      }
      const pageSize = body.page_size ?? 100;
      if (body.cursor === undefined) {
        // Pages count from 0, as Kasm counts them (it skips page × page_size users).
        const page = body.page ?? 0;
        const sortBy = body.sort_by ?? 'username';
        const sortDirection = body.sort_direction ?? 'asc';
        const { users, total, more } = await store.users.list({ pageSize, sortBy, sortDirection, start: { skip: page * pageSize } });
        return {
          users,
          total,
          page,
          page_size: pageSize,
          next_cursor: more ? cursorAfter(present(users.at(-1), 'the last user of a page'), sortBy, sortDirection) : null,
        };
      }
      const { sortBy, sortDirection, after } = parseCursor(body.cursor);
      if (body.sort_by !== undefined && body.sort_by !== sortBy) {
        throw invalidCursor('/body/sort_by', `must be ${sortBy}, the order of the cursor, or left out`);
      }
      if (body.sort_direction !== undefined && body.sort_direction !== sortDirection) {
        throw invalidCursor('/body/sort_direction', `must be ${sortDirection}, the order of the cursor, or left out`);
      }
      const { users, total, more } = await store.users.list({ pageSize, sortBy, sortDirection, start: { after } });
      return {
        users,
        total,
        page_size: pageSize,
        next_cursor: more ? cursorAfter(present(users.at(-1), 'the last user of a page'), sortBy, sortDirection) : null,
      };
    },

    // As Kasm: the identifier wins when both come, and an empty one counts as absent.
    async getUser({ target_user }, { answersVersion }) {
      // Both may come, though the contract's types name one: a user_id beside a username is a UserRef.
      const sent: { user_id?: string | null; username?: string } = target_user;
      const found = sent.user_id
        ? await store.users.findById(canonicalId(sent.user_id))
        : await store.users.findByUsername(prepareUsername(sent.username ?? ''));
      if (!found) throw userNotFound();
      answersVersion(found.version);
      return { user: found.record };
    },

    async createUser({ target_user }, { author, answersVersion }) {
      const { password, ...profile } = target_user;
      const username = acceptedUsername(profile.username);
      if (password !== undefined) assertPasswordPolicy(password, username);
      const created = await renamingConflictsAsTaken(async () =>
        store.users.create(
          {
            user_id: randomBytes(16).toString('hex'),
            username,
            first_name: profile.first_name ?? '',
            last_name: profile.last_name ?? '',
            phone: profile.phone ?? '',
            organization: profile.organization ?? '',
            locked: profile.locked ?? false,
            disabled: profile.disabled ?? false,
            password_hash: password === undefined ? null : await hashPassword(password),
            created: new Date().toISOString(),
          },
          author,
        ),
      );
      answersVersion(created.version);
      return { user: created.record };
    },

    // docs/spec §4.1: a partial update, applied atomically, with its audit event.
    async updateUser({ target_user }, { author, expectedVersions, answersVersion }) {
      const { user_id: sentId, username, password, ...fields } = target_user;
      const user_id = canonicalId(sentId);
      const changes: UserChanges = { ...fields };
      if (username !== undefined) changes.username = acceptedUsername(username);
      // An empty password keeps the one the user has, as in Kasm (the contract's PasswordChange).
      if (password !== undefined && password !== '') {
        // Look first: hashing costs tens of milliseconds, not worth spending on a missing user.
        const stored = await store.users.findById(user_id);
        if (!stored) throw userNotFound();
        if (expectedVersions && !expectedVersions.includes(stored.version)) throw versionMismatch(stored.version);
        assertPasswordPolicy(password, changes.username ?? stored.record.username);
        changes.password_hash = await hashPassword(password);
        changes.password_set_date = new Date().toISOString();
      }
      const updated = await whenAtVersion(() =>
        renamingConflictsAsTaken(() => store.users.update(user_id, changes, author, expectedVersions)),
      );
      if (!updated) throw userNotFound();
      answersVersion(updated.version);
      return { user: updated.record };
    },

    // The service issues no sessions: it records when they became invalid, for the front ends that do.
    async logoutUser({ target_user }, { author }) {
      if (!(await store.users.logout(canonicalId(target_user.user_id), new Date().toISOString(), author))) throw userNotFound();
      return {};
    },

    async deleteUser({ target_user }, { author, expectedVersions }) {
      if (!(await whenAtVersion(() => store.users.delete(canonicalId(target_user.user_id), author, expectedVersions))))
        throw userNotFound();
      return {};
    },
  };
}
