import { PERMISSIONS } from '../../lib/contract/operations.js';
import type { Store } from '../store/repositories.js';
import { type IssuedApiKey, issueApiKey } from './api-keys.js';
import { SERVICE } from '../store/records.js';

/**
 * On a database with no API key at all, creates one with every permission so
 * that `npm start` alone gives a usable service. Returns it (with its secret,
 * to be shown once) only when it was created.
 */
export async function createFirstApiKey(store: Store): Promise<IssuedApiKey | undefined> {
  const issued = issueApiKey('first key', PERMISSIONS, null);
  return (await store.apiKeys.insertFirst(issued.record, SERVICE)) ? issued : undefined;
}
