/**
 * A store of its own for each store-level test file: a temporary SQLite file,
 * or a fresh database on the PostgreSQL server the run was given
 * (createTestDatabase), so the same tests check both stores.
 */
import { randomBytes } from 'node:crypto';
import { createTestDatabase, TEST_STORE } from '../../testing/database.js';
import { openStore } from '../open-store.js';
import type { NewUserRecord } from '../records.js';
import type { Store } from '../repositories.js';

export { TEST_STORE };

export interface TestStore {
  store: Store;
  close(): Promise<void>;
}

export async function openTestStore(): Promise<TestStore> {
  const database = await createTestDatabase();
  const store = await openStore(database.url);
  return {
    store,
    async close() {
      await store.close();
      await database.drop();
    },
  };
}

/** A new user's record, with these fields changed. */
export function newUserRecord(fields: Partial<NewUserRecord> = {}): NewUserRecord {
  return {
    user_id: randomBytes(16).toString('hex'),
    username: `${randomBytes(6).toString('hex')}@example.com`,
    first_name: '',
    last_name: '',
    phone: '',
    organization: '',
    locked: false,
    disabled: false,
    password_hash: null,
    created: new Date().toISOString(),
    ...fields,
  };
}
