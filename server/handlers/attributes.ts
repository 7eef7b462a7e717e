/** A user's preferences, Kasm's user attributes: getAttributes, updateUserAttributes. */
import type { Handlers, Services } from './types.js';

export function attributeHandlers({ directory }: Services): Pick<Handlers, 'getAttributes' | 'updateUserAttributes'> {
  return {
    async getAttributes({ target_user }) {
      return { user_attributes: await directory.attributes.find(target_user.user_id) };
    },
    async updateUserAttributes({ target_user_attributes }, { author }) {
      const { user_id, ...changes } = target_user_attributes;
      return { user_attributes: await directory.attributes.update(user_id, changes, author) };
    },
  };
}
