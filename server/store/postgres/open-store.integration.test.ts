/**
 * What only PostgreSQL has to get right: several instances starting at once
 * on one empty database, and a database reached over a Unix socket. Run by the PostgreSQL pass of `npm run test:integration` (a throwaway cluster).
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

describe('PostgreSQL: reached over a Unix socket', () => {
  let database: TestDatabase;
  before(async () => {
    assert.ok(process.env.TEST_POSTGRES_URL, 'run through scripts/with-postgres.ts (the PostgreSQL pass of npm run test:integration)');
    database = await createTestDatabase();
  });
  after(() => database?.drop());

  it('connects through the socket a DATABASE_URL names with ?host=<directory> (docs/operations.md)', async () => {
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ unix_socket_directories: string }>('show unix_socket_directories');
      const directory = rows[0]!.unix_socket_directories.split(',')[0]!.trim();
      assert.ok(directory.startsWith('/'), `the cluster has a socket directory (${directory})`);
      // As docs/operations.md writes it: the host part is not used where `host` names a directory.
      const overSocket = new URL(database.url);
      overSocket.hostname = 'localhost';
      overSocket.searchParams.set('host', directory);
      const store = await openStore(overSocket.toString());
      try {
        assert.ok((await store.groups.list()).length > 0, 'the store answers');
        // A connection over a Unix socket has no client address (pg_stat_activity.client_addr).
        const { rows: connections } = await admin.query<{ over_socket: string; over_tcp: string }>(
          `select count(*) filter (where client_addr is null) as over_socket, count(*) filter (where client_addr is not null) as over_tcp
           from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
        );
        assert.ok(Number(connections[0]!.over_socket) > 0, 'the store holds connections over the socket');
        assert.equal(Number(connections[0]!.over_tcp), 0, 'and none over TCP');
      } finally {
        await store.close();
      }
    } finally {
      await admin.end();
    }
  });
});
