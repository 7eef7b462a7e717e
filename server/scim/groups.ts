/**
 * SCIM's Groups: the same groups and memberships as the workspace API's, with
 * the same rules (a unique name; the system group keeps its name and every
 * user) and the same audit events, one per membership added or removed.
 */
import { randomBytes } from 'node:crypto';
import { canonicalId } from '../handlers/ids.js';
import { entityTag } from '../http/entity-tags.js';
import { ServiceError } from '../service-errors.js';
import { InvalidFilterError } from '../store/scim-filter.js';
import {
  NameTakenError,
  StaleVersionError,
  type GroupRewrite,
  type GroupSearch,
  type StoredGroup,
  UnknownMembersError,
} from '../store/records.js';
import type { Store } from '../store/repositories.js';
import { ScimFailure, invalidFilter, invalidValue, resourceNotFound } from './errors.js';
import { GROUP_SCHEMA, groupFieldsFrom, scimGroup } from './group-resource.js';
import { listQuery, listResponse } from './list-query.js';
import { groupAmendment } from './group-amendment.js';
import { patchOperations, patched } from './patch.js';
import { projected, shows } from './projection.js';
import type { ScimAnswer, ScimHandlers, ScimRequest } from './types.js';
import { InvalidValueError } from './user-resource.js';
import { writeAtVersionRead } from './versioned-write.js';

const SORT_FIELDS = new Map<string, GroupSearch['sortBy']>([
  ['id', 'group_id'],
  ['displayname', 'name'],
  ['meta.created', 'created'],
  ['meta.lastmodified', 'modified'],
]);

const groupChanged = (current: number) =>
  new ScimFailure(412, 'versionMismatch', `The group is not at the version If-Match names; it is now at ${entityTag(current)}`);
const nameTaken = () => new ServiceError(409, 'group_name_taken', 'Group name is already taken');
const systemGroupKept = () =>
  new ServiceError(409, 'system_group', 'The system group "All Users" keeps its name and every user, and cannot be deleted');

/** The fields of a SCIM Group, or 400 invalidValue naming the attribute at fault. */
function fieldsOf(resource: unknown): Required<GroupRewrite> {
  try {
    return groupFieldsFrom(resource as Record<string, unknown>);
  } catch (error) {
    if (error instanceof InvalidValueError) throw invalidValue(error.message);
    throw error;
  }
}

/** The store's refusals of a group write, as SCIM answers them. */
function answeringRefusals(error: unknown): never {
  if (error instanceof NameTakenError) throw nameTaken();
  if (error instanceof UnknownMembersError) throw invalidValue(`members: ${error.message}`);
  throw error;
}

/** Whether the answer shows members: Entra ID and Okta read groups with `excludedAttributes=members`, and then none are read. */
const showsMembers = (request: ScimRequest) => shows(request.query, 'members', GROUP_SCHEMA);

export function scimGroupHandlers(
  store: Store,
): Pick<ScimHandlers, 'listGroups' | 'getGroup' | 'createGroup' | 'replaceGroup' | 'patchGroup' | 'deleteGroup'> {
  const answer = (stored: StoredGroup, request: ScimRequest, status: 200 | 201 = 200): ScimAnswer => {
    const resource = scimGroup(stored, request.base);
    return {
      status,
      body: projected(resource as unknown as Record<string, unknown>, request.query, []),
      version: stored.version,
      ...(status === 201 ? { location: resource.meta.location } : {}),
    };
  };

  const found = async (id: string, withMembers = true) => {
    const stored = await store.groups.find(canonicalId(id), { withMembers });
    if (!stored) throw resourceNotFound('Group');
    return stored;
  };

  /**
   * A change to the group as read (with its members when `readMembers`), written only at the
   * version read (versioned-write.ts); the store's refusals answered as SCIM's.
   */
  const changeGroup = async (
    request: ScimRequest,
    readMembers: boolean,
    write: (current: StoredGroup) => Promise<StoredGroup | 'no_group' | 'system_group'>,
  ): Promise<StoredGroup> => {
    try {
      return await writeAtVersionRead(
        request.expectedVersions,
        () => found(request.id, readMembers),
        async (current) => {
          const result = await write(current);
          if (result === 'no_group') throw resourceNotFound('Group');
          if (result === 'system_group') throw systemGroupKept();
          return result;
        },
        groupChanged,
      );
    } catch (error) {
      return answeringRefusals(error);
    }
  };

  /** The group set to what `rewrite` makes of it as read, members and all. */
  const rewriteGroup = (request: ScimRequest, rewrite: (current: StoredGroup) => unknown) =>
    changeGroup(request, true, (current) =>
      store.groups.rewrite(current.record.group_id, fieldsOf(rewrite(current)), request.author, [current.version]),
    );

  return {
    async listGroups(request) {
      const query = listQuery(request.query, SORT_FIELDS, 'name');
      try {
        const { groups, total } = await store.groups.search({ ...query, withMembers: showsMembers(request) });
        return {
          status: 200,
          body: listResponse(
            groups.map((group) => answer(group, request).body),
            total,
            query.startIndex,
          ),
        };
      } catch (error) {
        if (error instanceof InvalidFilterError) throw invalidFilter(error.message);
        throw error;
      }
    },

    async getGroup(request) {
      return answer(await found(request.id, showsMembers(request)), request);
    },

    async createGroup(request) {
      const { name, external_id, members } = fieldsOf(request.body);
      const group_id = randomBytes(16).toString('hex');
      try {
        await store.groups.create({ group_id, name, external_id, members }, request.author);
      } catch (error) {
        answeringRefusals(error);
      }
      return answer(await found(group_id), request, 201);
    },

    async replaceGroup(request) {
      return answer(await rewriteGroup(request, () => request.body), request);
    },

    async patchGroup(request) {
      const operations = patchOperations(request.body);
      const amendment = groupAmendment(operations);
      // The group goes back only to a client that says which of it to show (see the contract).
      const shown = request.query.attributes !== undefined || request.query.excludedAttributes !== undefined;
      const changed = amendment
        ? await changeGroup(request, false, (current) =>
            store.groups.amend(current.record.group_id, amendment, request.author, {
              expected: [current.version],
              withMembers: shown && showsMembers(request),
            }),
          )
        : await rewriteGroup(request, (current) => patched(scimGroup(current, request.base), operations));
      return shown ? answer(changed, request) : { status: 204, version: changed.version };
    },

    async deleteGroup(request) {
      let result: Awaited<ReturnType<Store['groups']['delete']>>;
      try {
        result = await store.groups.delete(canonicalId(request.id), request.author, request.expectedVersions);
      } catch (error) {
        if (error instanceof StaleVersionError) throw groupChanged(error.current);
        throw error;
      }
      if (result === 'no_group') throw resourceNotFound('Group');
      if (result === 'system_group') throw systemGroupKept();
      return { status: 204 };
    },
  };
}
