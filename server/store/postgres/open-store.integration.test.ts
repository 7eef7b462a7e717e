/**
 * What only PostgreSQL has to get right: several instances starting at once
 * on one empty database. Run by the PostgreSQL pass of `npm run test:integration` (a throwaway cluster).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { createFirstApiKey } from '../../keys/first-key.js';
import { createTestDatabase, type TestDatabase } from '../../testing/database.js';
import { MIGRATION_NAMES } from '../migrations.js';
import { openStore } from '../open-store.js';
import { openInspectedStore } from '../testing/open-test-store.js';

describe('PostgreSQL: instances starting together', () => {
  let database: TestDatabase;
  before(async () => {
    assert.ok(process.env.TEST_POSTGRES_URL, 'run through scripts/with-postgres.ts (the PostgreSQL pass of npm run test:integration)');
    database = await createTestDatabase({ empty: true });
  });
  after(() => database?.drop());

  it('migrate an empty database once, whatever the interleaving, and again changes nothing', async () => {
    const opened = await Promise.all(Array.from({ length: 5 }, () => openInspectedStore(database.url)));
    const stores = opened.map(({ store }) => store);
    const { inspection } = opened[0]!;
    try {
      assert.deepEqual(await inspection.appliedMigrations(), MIGRATION_NAMES);
      assert.deepEqual(
        (await stores[0]!.groups.list()).map((group) => group.name),
        ['All Users'],
      );
      const rows = await inspection.execute(sql<{ data_type: string }>`
        select data_type from information_schema.columns where table_name = 'users' and column_name = 'locked'`);
      assert.equal(rows[0]?.data_type, 'boolean');
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
    const reopened = await openInspectedStore(database.url);
    assert.deepEqual(await reopened.inspection.appliedMigrations(), MIGRATION_NAMES);
    await reopened.store.close();
  });

  it('survive the server ending their idle connections (a restart, an administrator)', async () => {
    const store = await openStore(database.url);
    try {
      await Promise.all([store.unreadyBecause(1_000), store.unreadyBecause(1_000), store.unreadyBecause(1_000)]); // several idle connections in the pool
      const admin = new pg.Client({ connectionString: database.url });
      await admin.connect();
      const { rowCount } = await admin.query(
        'select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      await admin.end();
      assert.ok((rowCount ?? 0) > 0, 'idle connections were ended');
      await new Promise((resolve) => setTimeout(resolve, 100)); // let the pool see them go
      assert.equal(await store.unreadyBecause(1_000), undefined);
      assert.ok((await store.groups.list()).length > 0, 'the store answers on fresh connections');
    } finally {
      await store.close();
    }
  });

  it('create exactly one first API key', async () => {
    const stores = await Promise.all(Array.from({ length: 5 }, () => openStore(database.url)));
    try {
      const created = await Promise.all(stores.map((store) => createFirstApiKey(store)));
      assert.equal(created.filter(Boolean).length, 1);
      assert.equal((await stores[0]!.apiKeys.list()).length, 1);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});
