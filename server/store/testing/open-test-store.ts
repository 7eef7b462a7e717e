/**
 * A store of its own for each store-level test file: a temporary SQLite file,
 * or a fresh database on the PostgreSQL server the run was given
 * (createTestDatabase), so the same tests check both stores.
 */
import { randomBytes } from 'node:crypto';
import { createTestDatabase, TEST_STORE } from '../../testing/database.js';
import { openDatabase, serviceStore, type StoreOptions } from '../open-store.js';
import type { NewUserRecord } from '../records.js';
import type { Store } from '../repositories.js';
import { inspectDatabase, type StoreInspection } from './inspection.js';

export { TEST_STORE };

export interface InspectedStore {
  /** The store as openStore gives it to the service. */
  store: Store;
  /** The same database seen row by row (inspection.ts). */
  inspection: StoreInspection;
}

/** What openStore opens, and a look inside its database besides. */
export async function openInspectedStore(databaseUrl: string, options: StoreOptions = {}): Promise<InspectedStore> {
  const opened = await openDatabase(databaseUrl, options);
  return { store: await serviceStore(opened, options), inspection: inspectDatabase(opened) };
}

export interface TestStore extends InspectedStore {
  close(): Promise<void>;
}

export async function openTestStore(): Promise<TestStore> {
  const database = await createTestDatabase();
  const { store, inspection } = await openInspectedStore(database.url);
  return {
    store,
    inspection,
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
