/** Groups and membership: getGroups, createGroup, updateGroup, deleteGroup, addUserGroup, removeUserGroup. */
import type { Handlers, Services } from './types.js';

export function groupHandlers({
  directory,
}: Services): Pick<Handlers, 'getGroups' | 'createGroup' | 'updateGroup' | 'deleteGroup' | 'addUserGroup' | 'removeUserGroup'> {
  const groups = directory.groups;
  return {
    async getGroups() {
      return { groups: await groups.list() };
    },
    async createGroup({ target_group }, { author }) {
      return { group: await groups.create(target_group, author) };
    },
    async updateGroup({ target_group }, { author }) {
      const { group_id, ...changes } = target_group;
      return { group: (await groups.update(group_id, changes, author)).record };
    },
    async deleteGroup({ target_group }, { author }) {
      await groups.delete(target_group.group_id, author);
      return {};
    },
    async addUserGroup({ target_user, target_group }, { author }) {
      await groups.addMember(target_user.user_id, target_group.group_id, author);
      return {};
    },
    async removeUserGroup({ target_user, target_group }, { author }) {
      await groups.removeMember(target_user.user_id, target_group.group_id, author);
      return {};
    },
  };
}
