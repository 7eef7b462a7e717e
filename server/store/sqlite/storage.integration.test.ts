import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { explain } from '../../service-errors.js';
import { MIGRATION_NAMES } from '../migrations.js';
import { openStore } from '../open-store.js';
import { DEFAULT_DATABASE_TIMEOUTS } from '../timeouts.js';
import { withStatementCache } from './connection.js';
import { openSqliteConnection } from './open-connection.js';
import { TEST_SETUP } from '../../testing/test-setup.js';
import { newUserRecord, openInspectedStore } from '../testing/open-test-store.js';

describe('SQLite storage', () => {
  let directory: string;
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'workspace-store-'));
  });
  after(() => rm(directory, { recursive: true, force: true }));

  it('applies migrations to an existing database file idempotently, keeping its data', async () => {
    const url = `sqlite:${join(directory, 'existing.db')}`;
    const first = await openStore(url);
    const { record: user } = await first.users.create(
      newUserRecord({ user_id: 'a'.repeat(32), username: 'kept@example.com', first_name: 'Kept' }),
      TEST_SETUP,
    );
    await first.close();

    for (let reopen = 0; reopen < 2; reopen++) {
      const { store: again, inspection } = await openInspectedStore(url);
      assert.deepEqual((await again.users.findById(user.user_id))?.record, user);
      const groups = await again.groups.list();
      assert.deepEqual(
        groups.map((group) => group.name),
        ['All Users'],
        'the system group is created once',
      );
      assert.deepEqual(await inspection.appliedMigrations(), MIGRATION_NAMES, 'each migration recorded once');
      await again.close();
    }
  });

  it('copies the migrations’ write-ahead log into the file and empties it, and leaves a log alone when nothing migrates', async () => {
    const path = join(directory, 'migrated.db');
    const store = await openStore(`sqlite:${path}`);
    assert.equal(statSync(`${path}-wal`).size, 0, 'the log emptied');
    assert.ok(statSync(path).size > 100_000, `the schema in the file: ${statSync(path).size} bytes`);
    await store.users.create(newUserRecord(), TEST_SETUP);
    const logged = statSync(`${path}-wal`).size;
    assert.ok(logged > 0);
    // Opened again beside the first, with nothing to migrate: the log the first is writing stays.
    const second = await openStore(`sqlite:${path}`);
    assert.equal(statSync(`${path}-wal`).size, logged);
    await second.close();
    await store.close();
  });

  it('creates the directory of a new database file', async () => {
    const store = await openStore(`sqlite:${join(directory, 'nested', 'deeper', 'new.db')}`);
    assert.equal(await store.unreadyBecause(1_000), undefined);
    await store.close();
  });

  it('sets WAL, synchronous=FULL, foreign keys, a busy timeout and the log copied every 4,000 pages on every connection it opens', () => {
    const path = join(directory, 'pragmas.db');
    for (let i = 0; i < 3; i++) {
      const connection = openSqliteConnection(path);
      assert.equal(connection.pragma('journal_mode', { simple: true }), 'wal');
      assert.equal(connection.pragma('synchronous', { simple: true }), 2, 'FULL is 2');
      assert.equal(connection.pragma('foreign_keys', { simple: true }), 1);
      assert.equal(connection.pragma('busy_timeout', { simple: true }), DEFAULT_DATABASE_TIMEOUTS.lockMs);
      assert.equal(connection.pragma('wal_autocheckpoint', { simple: true }), 4_000);
      connection.close();
    }
  });

  it('reuses prepared statements, keeping only the most recent', () => {
    const connection = withStatementCache(openSqliteConnection(join(directory, 'cache.db')), 2);
    const first = connection.prepare('select 1');
    assert.equal(connection.prepare('select 1'), first, 'the same SQL gets the same statement');
    connection.prepare('select 2');
    connection.prepare('select 1'); // now the most recent
    connection.prepare('select 3'); // evicts "select 2", the least recent
    assert.equal(connection.cachedStatements, 2);
    assert.equal(connection.prepare('select 1'), first);
    assert.deepEqual(connection.prepare('select 1 as one').all(), [{ one: 1 }]);
    connection.close();
  });

  it('sets synchronous=FULL on the connection the store uses', async () => {
    const { store, inspection } = await openInspectedStore(`sqlite:${join(directory, 'store.db')}`);
    const rows = await inspection.execute(sql<{ synchronous: number }>`PRAGMA synchronous`);
    assert.equal(rows[0]?.synchronous, 2);
    await store.close();
  });

  it('refuses a DATABASE_URL it does not understand, with a clear message', async () => {
    await assert.rejects(openStore('mysql://localhost/db'), /DATABASE_URL must be sqlite:<path>/);
    await assert.rejects(openStore('sqlite:'), /needs a file path/);
    // A PostgreSQL URL nothing answers at: the message names it without its password.
    await assert.rejects(openStore('postgres://user:hunter2@127.0.0.1:1/x'), (error: Error) => {
      assert.match(explain(error), /^cannot open postgres:\/\/user:\*\*\*@127.0.0.1:1\/x: .*ECONNREFUSED/);
      assert.ok(!explain(error).includes('hunter2'));
      return true;
    });
  });
});
