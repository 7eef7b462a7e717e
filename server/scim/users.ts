/**
 * SCIM's Users (RFC 7644, 3): the same users, rules and audit trail as the
 * workspace API's user operations, read and written through the same store.
 * A replacement or a PATCH is computed on the SCIM resource as read, and
 * written only if the user is still at the version read (versioned-write.ts).
 */
import { randomBytes } from 'node:crypto';
import { acceptedUsername, assertPasswordPolicy } from '../handlers/users.js';
import { canonicalId } from '../handlers/ids.js';
import { hashPassword } from '../password/hashing.js';
import { usernameTaken, versionMismatch } from '../service-errors.js';
import { InvalidFilterError } from '../store/scim-filter.js';
import { NameTakenError, StaleVersionError, type StoredUser, type UserChanges, type UserSearch } from '../store/records.js';
import type { Store } from '../store/repositories.js';
import { invalidFilter, invalidValue, resourceNotFound } from './errors.js';
import { listQuery, listResponse } from './list-query.js';
import { patchOperations, patched } from './patch.js';
import { projected } from './projection.js';
import type { ScimAnswer, ScimHandlers, ScimRequest } from './types.js';
import { writeAtVersionRead } from './versioned-write.js';
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

const sameEmails = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * What `fields` change of the stored user, as the store's changes: only the fields whose
 * value differs (so that the audit event names them, and a change to nothing writes
 * nothing), the username in its stored form and the password hashed under the policy.
 */
async function changesOf({ record, directory }: StoredUser, fields: UserFields): Promise<UserChanges> {
  const changes: UserChanges = {};
  const profile = fields.profile;
  if (profile.username !== undefined && profile.username !== record.username) changes.username = acceptedUsername(profile.username);
  for (const field of ['first_name', 'last_name', 'phone', 'organization', 'disabled'] as const) {
    if (profile[field] !== undefined && profile[field] !== record[field]) (changes as Record<string, unknown>)[field] = profile[field];
  }
  if (fields.directory.external_id !== undefined && fields.directory.external_id !== directory.external_id)
    changes.external_id = fields.directory.external_id;
  if (fields.directory.emails !== undefined && !sameEmails(fields.directory.emails, directory.emails))
    changes.emails = fields.directory.emails;
  if (fields.password !== undefined) {
    assertPasswordPolicy(fields.password, changes.username ?? record.username);
    changes.password_hash = await hashPassword(fields.password);
    changes.password_set_date = new Date().toISOString();
  }
  return changes;
}

const asUniqueness = (error: unknown): never => {
  if (error instanceof NameTakenError) throw usernameTaken();
  throw error;
};

export function scimUserHandlers(
  store: Store,
): Pick<ScimHandlers, 'listUsers' | 'getUser' | 'createUser' | 'replaceUser' | 'patchUser' | 'deleteUser'> {
  const answer = (stored: StoredUser, request: ScimRequest, status: 200 | 201 = 200): ScimAnswer => {
    const resource = scimUser(stored, request.base);
    return {
      status,
      body: projected(resource as unknown as Record<string, unknown>, request.query, EXTENSIONS),
      version: stored.version,
      ...(status === 201 ? { location: resource.meta.location } : {}),
    };
  };

  const found = async (id: string) => {
    const stored = await store.users.findById(canonicalId(id));
    if (!stored) throw resourceNotFound('User');
    return stored;
  };

  /** Rewrites the user as `rewrite` makes the resource read, at the version read (versioned-write.ts). */
  const rewriteUser = async (request: ScimRequest, rewrite: (current: StoredUser) => unknown): Promise<ScimAnswer> => {
    try {
      const updated = await writeAtVersionRead(
        request.expectedVersions,
        () => found(request.id),
        async (current) => {
          const changes = await changesOf(current, fieldsOf(rewrite(current)));
          if (Object.keys(changes).length === 0) return current;
          const updated = await store.users.update(current.record.user_id, changes, request.author, [current.version]);
          if (!updated) throw resourceNotFound('User');
          return updated;
        },
        versionMismatch,
      );
      return answer(updated, request);
    } catch (error) {
      return asUniqueness(error);
    }
  };

  return {
    async listUsers(request) {
      const query = listQuery(request.query, SORT_FIELDS, 'user_id');
      try {
        const { users, total } = await store.users.search(query);
        return {
          status: 200,
          body: listResponse(
            users.map((user) => answer(user, request).body),
            total,
            query.startIndex,
          ),
        };
      } catch (error) {
        if (error instanceof InvalidFilterError) throw invalidFilter(error.message);
        throw error;
      }
    },

    async getUser(request) {
      return answer(await found(request.id), request);
    },

    async createUser(request) {
      const { profile, directory, password } = fieldsOf(request.body);
      const username = acceptedUsername(profile.username ?? '');
      if (password !== undefined) assertPasswordPolicy(password, username);
      try {
        const created = await store.users.create(
          {
            user_id: randomBytes(16).toString('hex'),
            username,
            first_name: profile.first_name ?? '',
            last_name: profile.last_name ?? '',
            phone: profile.phone ?? '',
            organization: profile.organization ?? '',
            locked: false,
            disabled: profile.disabled ?? false,
            external_id: directory.external_id ?? null,
            emails: directory.emails ?? [],
            password_hash: password === undefined ? null : await hashPassword(password),
            created: new Date().toISOString(),
          },
          request.author,
        );
        return answer(created, request, 201);
      } catch (error) {
        return asUniqueness(error);
      }
    },

    async replaceUser(request) {
      return rewriteUser(request, () => request.body);
    },

    async patchUser(request) {
      const operations = patchOperations(request.body);
      return rewriteUser(request, (current) => patched(scimUser(current, request.base), operations));
    },

    async deleteUser(request) {
      try {
        if (!(await store.users.delete(canonicalId(request.id), request.author, request.expectedVersions))) throw resourceNotFound('User');
      } catch (error) {
        if (error instanceof StaleVersionError) throw versionMismatch(error.current);
        throw error;
      }
      return { status: 204 };
    },
  };
}
