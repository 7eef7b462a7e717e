/** API keys: issued with the permissions asked for (none by default), changed or revoked, never shown again after their secret. */
import type { Permission } from '../../lib/contract/operations.js';
import { type IssuedApiKey, issueApiKey } from '../keys/api-keys.js';
import type { ApiKeyRecord, ChangeAuthor } from '../store/records.js';
import type { ApiKeyChanges, Store } from '../store/repositories.js';
import { refuse } from './errors.js';

export interface NewApiKey {
  /** What the key is for, e.g. "hr-sync". */
  name: string;
  permissions: readonly Permission[];
  expires: Date | null;
}

const noActiveKey = (): never => refuse({ kind: 'not_found', entity: 'api_key' });

export function keyDirectory(store: Store) {
  return {
    /** A new key and its secret, which the caller shows once: only its digest is kept. */
    async create(key: NewApiKey, by: ChangeAuthor): Promise<IssuedApiKey> {
      const issued = issueApiKey(key.name, key.permissions, key.expires);
      await store.apiKeys.insert(issued.record, by);
      return issued;
    },
    list: (): Promise<ApiKeyRecord[]> => store.apiKeys.list(),
    /** Changes an active key's permissions or expiry (null: never expires). */
    async update(apiKey: string, changes: ApiKeyChanges, by: ChangeAuthor): Promise<ApiKeyRecord> {
      return (await store.apiKeys.update(apiKey, changes, by)) ?? noActiveKey();
    },
    /** Revokes an active key: it stops working at once. Gives when. */
    async revoke(apiKey: string, by: ChangeAuthor): Promise<string> {
      const when = new Date().toISOString();
      if (!(await store.apiKeys.revoke(apiKey, when, by))) noActiveKey();
      return when;
    },
  };
}

export type KeyDirectory = ReturnType<typeof keyDirectory>;
