/** Groups and membership: getGroups, createGroup, updateGroup, deleteGroup, addUserGroup, removeUserGroup. */
import { randomBytes } from 'node:crypto';
import { ServiceError, groupNotFound, userNotFound } from '../service-errors.js';
import type { GroupChanges, MembershipChange } from '../store/records.js';
import type { Handlers, Services } from './types.js';
import { canonicalId } from './ids.js';
import { answeringTakenName } from './name-taken.js';

function answer(change: MembershipChange): Record<string, never> {
  switch (change) {
    case 'done':
      return {};
    case 'no_user':
      throw userNotFound();
    case 'no_group':
      throw groupNotFound();
    case 'already_member':
      throw new ServiceError(409, 'already_member', 'User is already a member of this group');
    case 'not_member':
      throw new ServiceError(409, 'not_member', 'User is not a member of this group');
    case 'system_group':
      throw new ServiceError(
        409,
        'system_group',
        'Users can be removed from a system group such as "All Users" only by a key with groups_modify_system',
      );
  }
}

const groupNameTaken = () => new ServiceError(409, 'group_name_taken', 'Group name is already taken');
const systemGroupKept = () => new ServiceError(409, 'system_group', 'A system group such as "All Users" cannot be renamed or deleted');

const namesAsTaken = <T>(write: () => Promise<T>) => answeringTakenName(write, groupNameTaken);

export function groupHandlers({
  store,
}: Services): Pick<Handlers, 'getGroups' | 'createGroup' | 'updateGroup' | 'deleteGroup' | 'addUserGroup' | 'removeUserGroup'> {
  return {
    async getGroups() {
      return { groups: await store.groups.list() };
    },
    async createGroup({ target_group }, { author }) {
      const group = await namesAsTaken(() =>
        store.groups.create(
          {
            group_id: randomBytes(16).toString('hex'),
            name: target_group.name.trim(),
            ...(target_group.description !== undefined ? { description: target_group.description } : {}),
            ...(target_group.priority !== undefined ? { priority: target_group.priority } : {}),
          },
          author,
        ),
      );
      return { group };
    },
    async updateGroup({ target_group }, { author }) {
      const { group_id, name, ...fields } = target_group;
      const changes: GroupChanges = { ...fields, ...(name !== undefined ? { name: name.trim() } : {}) };
      const result = await namesAsTaken(() => store.groups.update(canonicalId(group_id), changes, author));
      if (result === 'no_group') throw groupNotFound();
      if (result === 'system_group') throw systemGroupKept();
      return { group: result };
    },
    async deleteGroup({ target_group }, { author }) {
      const result = await store.groups.delete(canonicalId(target_group.group_id), author);
      if (result === 'no_group') throw groupNotFound();
      if (result === 'system_group') throw systemGroupKept();
      return {};
    },
    async addUserGroup({ target_user, target_group }, { author }) {
      return answer(await store.groups.addMember(canonicalId(target_user.user_id), canonicalId(target_group.group_id), author));
    },
    async removeUserGroup({ target_user, target_group }, { key, author }) {
      const fromSystemGroup = key?.permissions.includes('groups_modify_system') ?? false;
      return answer(
        await store.groups.removeMember(canonicalId(target_user.user_id), canonicalId(target_group.group_id), author, { fromSystemGroup }),
      );
    },
  };
}
