/**
 * API keys: issued with the permissions asked for (none by default), changed or
 * revoked, never shown again after their secret. A key that manages keys reaches
 * no further than itself: it grants only permissions it holds and an expiry no
 * later than its own, and revokes only keys whose permissions it holds, so that
 * no key can make a stronger one. An operator at the host (the admin command) may
 * grant anything.
 */
import { PERMISSIONS, type Permission } from '../../lib/contract/operations.js';
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

/** Who grants or revokes a key: the key a request came with, or the operator at the host. */
export type Grantor = ApiKeyRecord | 'operator';

/** The longest name a key may have, in code points, as the contract's ApiKeyName says. */
const NAME_MAX = 100;

const noActiveKey = (): never => refuse({ kind: 'not_found', entity: 'api_key' });

function acceptedName(name: string): string {
  const trimmed = name.trim();
  // eslint-disable-next-line no-control-regex -- the control characters are what is refused.
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) refuse({ kind: 'invalid_api_key', field: 'name', reason: 'has a control character' });
  if (trimmed === '') refuse({ kind: 'invalid_api_key', field: 'name', reason: 'is empty' });
  if ([...trimmed].length > NAME_MAX) refuse({ kind: 'invalid_api_key', field: 'name', reason: `is longer than ${NAME_MAX} characters` });
  return trimmed;
}

function acceptedExpiry(expires: Date | null, now: Date): Date | null {
  if (expires && expires.getTime() <= now.getTime()) refuse({ kind: 'invalid_api_key', field: 'expires', reason: 'is not in the future' });
  return expires;
}

/** The permissions `grantor` holds none of, of those asked for. */
const beyond = (grantor: Grantor, permissions: readonly Permission[]) =>
  grantor === 'operator' ? [] : permissions.filter((permission) => !grantor.permissions.includes(permission));

/** Refuses a grant that reaches past the grantor: a permission it lacks, or an expiry later than its own. */
function assertWithinGrantor(grantor: Grantor, permissions: readonly Permission[], expires: Date | null): void {
  const lacking = beyond(grantor, permissions);
  if (lacking.length > 0)
    refuse({ kind: 'grant_exceeds_key', reason: `A key grants only permissions it holds itself: this key lacks ${lacking.join(', ')}` });
  if (grantor === 'operator' || grantor.expires === null) return;
  if (expires === null || expires.getTime() > Date.parse(grantor.expires))
    refuse({ kind: 'grant_exceeds_key', reason: `A key grants no expiry later than its own: this key expires at ${grantor.expires}` });
}

/** In the contract's order, each once. */
const inContractOrder = (permissions: readonly Permission[]) => PERMISSIONS.filter((permission) => permissions.includes(permission));

export function keyDirectory(store: Store) {
  return {
    /** A new key and its secret, which the caller shows once: only its digest is kept. */
    async create(key: NewApiKey, by: ChangeAuthor, grantor: Grantor): Promise<IssuedApiKey> {
      const now = new Date();
      const name = acceptedName(key.name);
      const expires = acceptedExpiry(key.expires, now);
      assertWithinGrantor(grantor, key.permissions, expires);
      const issued = issueApiKey(name, inContractOrder(key.permissions), expires, now);
      await store.apiKeys.insert(issued.record, by);
      return issued;
    },
    /** The keys, oldest first; the revoked ones only when asked for. */
    async list({ includeRevoked = false } = {}): Promise<ApiKeyRecord[]> {
      const keys = await store.apiKeys.list();
      return includeRevoked ? keys : keys.filter((key) => key.revoked === null);
    },
    /** Changes an active key's permissions or expiry (null: never expires); the operator's alone. */
    async update(apiKey: string, changes: ApiKeyChanges, by: ChangeAuthor): Promise<ApiKeyRecord> {
      if (changes.expires) acceptedExpiry(new Date(changes.expires), new Date());
      const permissions = changes.permissions && inContractOrder(changes.permissions);
      return (await store.apiKeys.update(apiKey, { ...changes, ...(permissions ? { permissions } : {}) }, by)) ?? noActiveKey();
    },
    /** Revokes an active key: it stops working at once. Gives the key as revoked. */
    async revoke(apiKey: string, by: ChangeAuthor, grantor: Grantor): Promise<ApiKeyRecord> {
      const key = await store.apiKeys.find(apiKey);
      if (!key || key.revoked !== null) return noActiveKey();
      const lacking = beyond(grantor, key.permissions);
      if (lacking.length > 0)
        refuse({
          kind: 'grant_exceeds_key',
          reason: `A key revokes only keys whose permissions it holds: this key lacks ${lacking.join(', ')}`,
        });
      const revoked = new Date().toISOString();
      if (!(await store.apiKeys.revoke(apiKey, revoked, by))) noActiveKey();
      return { ...key, revoked };
    },
  };
}

export type KeyDirectory = ReturnType<typeof keyDirectory>;
