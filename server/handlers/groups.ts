/** Groups and membership: getGroups, addUserGroup, removeUserGroup. */
import { ServiceError, groupNotFound, userNotFound } from '../service-errors.js';
import type { MembershipChange } from '../store/records.js';
import type { Handlers, Services } from './types.js';
import { canonicalId } from './ids.js';

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

export function groupHandlers({ store }: Services): Pick<Handlers, 'getGroups' | 'addUserGroup' | 'removeUserGroup'> {
  return {
    async getGroups() {
      return { groups: await store.groups.list() };
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
