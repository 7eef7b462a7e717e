/** The user lifecycle: getUsers, getUser, createUser, updateUser, deleteUser, logoutUser. */
import { canonicalId, userAsSeen, type UserChange } from '../directory/index.js';
import { DEFAULT_GET_USERS_MAX, everyUser, listingTurns } from './every-user.js';
import type { Handlers, Services } from './types.js';
import { cursorAfter, invalidCursor, parseCursor } from './user-cursor.js';
import { present } from '../../lib/present.js';

export function userHandlers({
  directory,
  getUsersMax = DEFAULT_GET_USERS_MAX,
}: Services): Pick<Handlers, 'getUsers' | 'getUser' | 'createUser' | 'updateUser' | 'deleteUser' | 'logoutUser'> {
  const users = directory.users;
  const turns = listingTurns();
  return {
    async getUsers(body, { sight }) {
      // No page asked for: every user, as Kasm's get_users answers (every-user.ts).
      const asksForPage = [body.page, body.page_size, body.cursor, body.search, body.group_id].some((field) => field !== undefined);
      if (!asksForPage) {
        return everyUser(users, turns, {
          sortBy: body.sort_by ?? 'username',
          sortDirection: body.sort_direction ?? 'asc',
          max: getUsersMax,
          sight,
        });
      }
      const pageSize = body.page_size ?? 100;
      if (body.cursor === undefined) {
        // Pages count from 0, as Kasm counts them (it skips page × page_size users).
        const page = body.page ?? 0;
        const sortBy = body.sort_by ?? 'username';
        const sortDirection = body.sort_direction ?? 'asc';
        // The group as the directory names it, so that a cursor compares with any form of its id.
        const filters = { search: body.search, groupId: body.group_id === undefined ? undefined : canonicalId(body.group_id) };
        const listing = await users.list({
          pageSize,
          sortBy,
          sortDirection,
          start: { skip: page * pageSize },
          matching: filters.search,
          memberOf: filters.groupId,
        });
        return {
          users: listing.users.map((user) => userAsSeen(user, sight)),
          total: listing.total,
          page,
          page_size: pageSize,
          next_cursor: listing.more
            ? cursorAfter(present(listing.users.at(-1), 'the last user of a page'), sortBy, sortDirection, filters)
            : null,
        };
      }
      const { sortBy, sortDirection, after, search, groupId } = parseCursor(body.cursor);
      if (body.sort_by !== undefined && body.sort_by !== sortBy) {
        throw invalidCursor('/body/sort_by', `must be ${sortBy}, the order of the cursor, or left out`);
      }
      if (body.sort_direction !== undefined && body.sort_direction !== sortDirection) {
        throw invalidCursor('/body/sort_direction', `must be ${sortDirection}, the order of the cursor, or left out`);
      }
      if (body.search !== undefined && body.search !== search) {
        throw invalidCursor(
          '/body/search',
          search === undefined
            ? 'must be left out: the cursor is of a listing without a search'
            : 'must be the search of the cursor, or left out',
        );
      }
      if (body.group_id !== undefined && canonicalId(body.group_id) !== groupId) {
        throw invalidCursor(
          '/body/group_id',
          groupId === undefined
            ? "must be left out: the cursor is of a listing of every group's users"
            : 'must be the group of the cursor, or left out',
        );
      }
      const listing = await users.list({ pageSize, sortBy, sortDirection, start: { after }, matching: search, memberOf: groupId });
      return {
        users: listing.users.map((user) => userAsSeen(user, sight)),
        total: listing.total,
        page_size: pageSize,
        next_cursor: listing.more
          ? cursorAfter(present(listing.users.at(-1), 'the last user of a page'), sortBy, sortDirection, { search, groupId })
          : null,
      };
    },

    // As Kasm: the identifier wins when both come, and an empty one counts as absent.
    async getUser({ target_user }, { sight, answersVersion }) {
      // Both may come, though the contract's types name one: a user_id beside a username is a UserRef.
      const sent: { user_id?: string | null; username?: string } = target_user;
      const found = await users.find(sent.user_id ? { userId: sent.user_id } : { username: sent.username ?? '' });
      answersVersion(found.version);
      return { user: userAsSeen(found.record, sight) };
    },

    async createUser({ target_user }, { author, sight, answersVersion }) {
      const created = await users.create(target_user, author);
      answersVersion(created.version);
      return { user: userAsSeen(created.record, sight) };
    },

    // docs/spec §4.1: a partial update, applied atomically, with its audit event.
    async updateUser({ target_user }, { author, expectedVersions, sight, answersVersion }) {
      const { user_id, password, ...fields } = target_user;
      // An empty password keeps the one the user has, as in Kasm (the contract's PasswordChange).
      const change: UserChange = password === undefined || password === '' ? fields : { ...fields, password };
      const updated = await users.update(user_id, change, author, expectedVersions);
      answersVersion(updated.version);
      return { user: userAsSeen(updated.record, sight) };
    },

    // The service issues no sessions: it records when they became invalid, for the front ends that do.
    async logoutUser({ target_user }, { author }) {
      await users.logout(target_user.user_id, author);
      return {};
    },

    async deleteUser({ target_user }, { author, expectedVersions }) {
      await users.delete(target_user.user_id, author, expectedVersions);
      return {};
    },
  };
}
