/**
 * SCIM's Groups: the directory's groups and memberships, read and written
 * through the directory (server/directory/), with the same rules (a unique
 * name; the system group keeps its name and every user) and the same audit
 * events, one per membership added or removed.
 */
import { sightOf, WHOLE_SIGHT, type Directory, type GroupRewrite, type GroupSearch, type StoredGroup } from '../directory/index.js';
import { invalidValue } from './errors.js';
import { GROUP_SCHEMA, groupFieldsFrom, scimGroup } from './group-resource.js';
import { listAnswer, listQuery } from './list-query.js';
import { groupAmendment } from './group-amendment.js';
import { patchOperations, patched } from './patch.js';
import { projected, shows } from './projection.js';
import type { ScimAnswer, ScimHandlers, ScimRequest } from './types.js';
import { InvalidValueError } from './user-resource.js';

const SORT_FIELDS = new Map<string, GroupSearch['sortBy']>([
  ['id', 'group_id'],
  ['displayname', 'name'],
  ['meta.created', 'created'],
  ['meta.lastmodified', 'modified'],
]);

/** The fields of a SCIM Group, or 400 invalidValue naming the attribute at fault. */
function fieldsOf(resource: unknown): Required<Pick<GroupRewrite, 'name' | 'external_id' | 'members'>> {
  try {
    return groupFieldsFrom(resource as Record<string, unknown>);
  } catch (error) {
    if (error instanceof InvalidValueError) throw invalidValue(error.message);
    throw error;
  }
}

/** Whether the answer shows members: Entra ID and Okta read groups with `excludedAttributes=members`, and then none are read. */
const showsMembers = (request: ScimRequest) => shows(request.query, 'members', GROUP_SCHEMA);

export function scimGroupHandlers({
  groups,
}: Pick<Directory, 'groups'>): Pick<
  ScimHandlers,
  'listGroups' | 'getGroup' | 'createGroup' | 'replaceGroup' | 'patchGroup' | 'deleteGroup'
> {
  const answer = (stored: StoredGroup, request: ScimRequest, status: 200 | 201 = 200): ScimAnswer => {
    const resource = scimGroup(stored, request.base, sightOf(request.key.permissions));
    return {
      status,
      body: projected(resource as unknown as Record<string, unknown>, request.query, []),
      version: stored.version,
      ...(status === 201 ? { location: resource.meta.location } : {}),
    };
  };

  /** The group set to what `rewrite` makes of it as read, members and all. */
  const rewriteGroup = (request: ScimRequest, rewrite: (current: StoredGroup) => unknown) =>
    groups.rewrite(request.id, (current) => fieldsOf(rewrite(current)), request.author, request.expectedVersions);

  return {
    async listGroups(request) {
      const query = listQuery(request.query, SORT_FIELDS, 'name');
      const { groups: found, total } = await groups.search({ ...query, withMembers: showsMembers(request) });
      return listAnswer(
        found.map((group) => answer(group, request).body),
        total,
        query.startIndex,
      );
    },

    async getGroup(request) {
      return answer(await groups.find(request.id, { withMembers: showsMembers(request) }), request);
    },

    async createGroup(request) {
      const created = await groups.create(fieldsOf(request.body), request.author);
      return answer(await groups.find(created.group_id), request, 201);
    },

    async replaceGroup(request) {
      return answer(await rewriteGroup(request, () => request.body), request);
    },

    async patchGroup(request) {
      const operations = patchOperations(request.body, 'Group');
      const amendment = groupAmendment(operations);
      // The group goes back only to a client that says which of it to show (see the contract).
      const shown = request.query.attributes !== undefined || request.query.excludedAttributes !== undefined;
      const changed = amendment
        ? await groups.amend(request.id, amendment, request.author, {
            ...(request.expectedVersions ? { expected: request.expectedVersions } : {}),
            withMembers: shown && showsMembers(request),
          })
        : await rewriteGroup(request, (current) => patched(scimGroup(current, request.base, WHOLE_SIGHT), operations));
      return shown ? answer(changed, request) : { status: 204, version: changed.version };
    },

    async deleteGroup(request) {
      await groups.delete(request.id, request.author, request.expectedVersions);
      return { status: 204 };
    },
  };
}
