/**
 * SCIM's Users (RFC 7644, 3): the directory's users, read and written through
 * the directory (server/directory/), so that SCIM applies the same rules and
 * records the same audit trail as every other door. A replacement or a PATCH
 * is computed here on the SCIM resource as read; the directory writes what it
 * changes, at the version read.
 */
import {
  sightOf,
  WHOLE_SIGHT,
  type Directory,
  type StoredUser,
  type StoredUserFields,
  type UserChange,
  type UserSearch,
} from '../directory/index.js';
import { invalidValue } from './errors.js';
import { listAnswer, listQuery } from './list-query.js';
import { patchOperations, patched } from './patch.js';
import { projected } from './projection.js';
import type { ScimAnswer, ScimHandlers, ScimRequest } from './types.js';
import {
  ENTERPRISE_USER_SCHEMA,
  InvalidValueError,
  type ScimUserInput,
  type UserFields,
  scimUser,
  userFieldsFrom,
} from './user-resource.js';

const EXTENSIONS = [ENTERPRISE_USER_SCHEMA] as const;

/** What each SCIM attribute sorts by, by its name in lower case. */
const SORT_FIELDS = new Map<string, UserSearch['sortBy']>([
  ['id', 'user_id'],
  ['username', 'username'],
  ['name.givenname', 'first_name'],
  ['name.familyname', 'last_name'],
  ['meta.created', 'created'],
  ['meta.lastmodified', 'modified'],
]);

/** The fields of a SCIM User, or 400 invalidValue naming the attribute at fault. */
function fieldsOf(resource: unknown): UserFields {
  try {
    return userFieldsFrom(resource as ScimUserInput);
  } catch (error) {
    if (error instanceof InvalidValueError) throw invalidValue(error.message);
    throw error;
  }
}

/** A SCIM User's fields as the directory's change. */
const changeOf = ({ profile, directory, password }: UserFields): UserChange => ({
  ...profile,
  ...directory,
  ...(password === undefined ? {} : { password }),
});

export function scimUserHandlers({
  users,
}: Pick<Directory, 'users'>): Pick<ScimHandlers, 'listUsers' | 'getUser' | 'createUser' | 'replaceUser' | 'patchUser' | 'deleteUser'> {
  const answer = (stored: StoredUser, request: ScimRequest, status: 200 | 201 = 200): ScimAnswer => {
    const resource = scimUser(stored, request.base, sightOf(request.key.permissions));
    return {
      status,
      body: projected(resource as unknown as Record<string, unknown>, request.query, EXTENSIONS),
      version: stored.version,
      ...(status === 201 ? { location: resource.meta.location } : {}),
    };
  };

  /** The user set to what `rewrite` makes of the resource read. */
  const rewriteUser = async (request: ScimRequest, rewrite: (current: StoredUserFields) => unknown): Promise<ScimAnswer> =>
    answer(
      await users.rewrite(request.id, (current) => changeOf(fieldsOf(rewrite(current))), request.author, request.expectedVersions),
      request,
    );

  return {
    async listUsers(request) {
      const query = listQuery(request.query, SORT_FIELDS, 'user_id');
      const { users: found, total } = await users.search(query);
      return listAnswer(
        found.map((user) => answer(user, request).body),
        total,
        query.startIndex,
      );
    },

    async getUser(request) {
      return answer(await users.find({ userId: request.id }), request);
    },

    async createUser(request) {
      const fields = fieldsOf(request.body);
      return answer(await users.create({ ...changeOf(fields), username: fields.profile.username ?? '' }, request.author), request, 201);
    },

    async replaceUser(request) {
      return rewriteUser(request, () => request.body);
    },

    async patchUser(request) {
      const operations = patchOperations(request.body, 'User');
      return rewriteUser(request, (current) => patched(scimUser(current, request.base, WHOLE_SIGHT), operations));
    },

    async deleteUser(request) {
      await users.delete(request.id, request.author, request.expectedVersions);
      return { status: 204 };
    },
  };
}
