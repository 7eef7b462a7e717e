/** API keys: createApiKey, getApiKeys, revokeApiKey. The key a request comes with grants and revokes (directory/keys.ts). */
import { scimToken } from '../../lib/contract/credentials.js';
import type { ApiKeyRecord } from '../directory/index.js';
import type { Handlers, HandlerContext, Services } from './types.js';

/** A key as this API shows it: never its secret's digest. */
const shown = ({ secret_digest: _digest, ...key }: ApiKeyRecord) => key;

function grantorOf({ key }: HandlerContext): ApiKeyRecord {
  // Every key operation takes keys_manage: the route has authenticated a key.
  if (!key) throw new Error('a key operation reached without a key');
  return key;
}

export function keyHandlers({ directory }: Services): Pick<Handlers, 'createApiKey' | 'getApiKeys' | 'revokeApiKey'> {
  const keys = directory.keys;
  return {
    async createApiKey({ target_api_key }, context) {
      const { name, permissions = [], expires } = target_api_key;
      const issued = await keys.create(
        { name, permissions, expires: expires === undefined ? null : new Date(expires) },
        context.author,
        grantorOf(context),
      );
      const credentials = { api_key: issued.record.api_key, api_key_secret: issued.secret };
      return { api_key: shown(issued.record), secret: issued.secret, scim_token: scimToken(credentials) };
    },
    async getApiKeys({ include_revoked }) {
      return { api_keys: (await keys.list({ includeRevoked: include_revoked ?? false })).map(shown) };
    },
    async revokeApiKey({ target_api_key }, context) {
      return { api_key: shown(await keys.revoke(target_api_key.api_key, context.author, grantorOf(context))) };
    },
  };
}
