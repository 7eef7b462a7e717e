/**
 * `admin status` and `admin migrate` on a database an older version made, as
 * a deploy pipeline runs them (in process: server/testing/admin.ts), on each store.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { Migrator, sql } from 'kysely';
import { MIGRATION_NAMES, MIGRATIONS } from '../store/migrations.js';
import { openDatabase } from '../store/open-store.js';
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../testing/database.js';
import { admin as runAdmin } from '../testing/admin.js';

/** The migrations of an older version: all before 0012; the rest (0012 on) are newer. */
const FIRST_NEWER = MIGRATION_NAMES.indexOf('0012_group_name_keys');
const NEWER = MIGRATION_NAMES.slice(FIRST_NEWER);
const OLDER = MIGRATION_NAMES.slice(0, FIRST_NEWER);

/** A database as the previous version left it: its migrations only, and one user. */
async function olderDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase({ empty: true });
  const opened = await openDatabase(database.url);
  try {
    const migrations = Object.fromEntries(OLDER.map((name) => [name, MIGRATIONS[name]!]));
    const { error } = await new Migrator({ db: opened.db, provider: { getMigrations: async () => migrations } }).migrateToLatest();
    assert.equal(error, undefined);
    const no = TEST_STORE === 'sqlite' ? sql`0` : sql`false`;
    await sql`insert into users (user_id, username, first_name, last_name, phone, organization, locked, disabled, created)
      values (${'a'.repeat(32)}, 'kept@example.com', 'Kept', '', '', '', ${no}, ${no}, ${new Date().toISOString()})`.execute(opened.db);
    // Names the group-name profile (migration 0012) would not take: a look-alike of an older group's, an invisible character.
    for (const [id, name, created] of [
      ['b'.repeat(32), 'Sales', '2026-01-01T00:00:00.000Z'],
      ['c'.repeat(32), 'SALES', '2026-01-02T00:00:00.000Z'],
      ['d'.repeat(32), 'Ops\u200bTeam', '2026-01-03T00:00:00.000Z'],
    ]) {
      // Two of them with one identity provider's id (migration 0013 keeps it unique from then on).
      await sql`insert into groups (group_id, name, is_system, created, external_id)
        values (${id}, ${name}, ${no}, ${created}, ${id === 'd'.repeat(32) ? null : 'okta-shared'})`.execute(opened.db);
    }
  } finally {
    await opened.db.destroy();
  }
  return database;
}

describe(`admin status and admin migrate on an older database (${TEST_STORE})`, () => {
  // Each test its own older database: none depends on what another did to it.
  let database: TestDatabase;
  const admin = (...args: string[]) => runAdmin(database.url, args);

  beforeEach(async () => {
    database = await olderDatabase();
  });
  afterEach(() => database.drop());

  it('status names the schema, the pending migration and the rows, and changes nothing', async () => {
    for (let twice = 0; twice < 2; twice++) {
      const run = await admin('status', '--json');
      assert.equal(run.code, 0, run.stderr);
      const status = JSON.parse(run.stdout);
      assert.deepEqual(status.applied, OLDER);
      assert.deepEqual(status.pending, NEWER);
      assert.deepEqual(status.unknown, []);
      assert.equal(status.counts.users, 1);
    }
    const table = await admin('status');
    assert.match(table.stdout, new RegExp(`schema: +${OLDER.at(-1)}\\n`));
    assert.match(table.stdout, new RegExp(`pending: +${NEWER.join(', ')}\\n`));
  });

  it('migrate applies what is pending, keeps the data, and then has nothing to do', async () => {
    const run = await admin('migrate', '--json');
    assert.equal(run.code, 0, run.stderr);
    const migrated = JSON.parse(run.stdout);
    assert.deepEqual(migrated.newly_applied, NEWER);
    assert.deepEqual(migrated.applied, MIGRATION_NAMES);
    assert.deepEqual(migrated.pending, []);
    assert.equal(migrated.counts.users, 1);

    const again = await admin('migrate');
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /nothing to apply: the schema is current/);
    const status = JSON.parse((await admin('status', '--json')).stdout);
    assert.deepEqual(status.pending, []);
    assert.equal(status.counts.users, 1);
    // Kept as they were, and reported for a person to rename.
    assert.deepEqual(
      status.groupNames.map((report: { group_id: string; name: string }) => [report.group_id, report.name]),
      [
        ['d'.repeat(32), 'Ops\u200bTeam'],
        ['c'.repeat(32), 'SALES'],
      ],
    );
    assert.match(status.groupNames[1].reason, new RegExp(`reads as the name of group ${'b'.repeat(32)}`));
    const printed = (await admin('status')).stdout;
    assert.match(printed, /group names: 2 to rename/);
    assert.deepEqual(status.sharedExternalIds, [{ resource: 'group', id: 'c'.repeat(32), external_id: 'okta-shared' }]);
    assert.match(printed, /externalIds: 1 shared with an older user or group/);
    assert.match(printed, /"Ops\\u\{200B\}Team": must not contain invisible formatting characters/);
    // The webhooks' tables are counted too: what a restore over this database would replace.
    assert.deepEqual([status.counts.webhooks, status.counts.webhook_deliveries, status.counts.webhook_attempts], [0, 0, 0]);
  });

  it('status refuses a database a newer version made, and migrate will not touch it', async () => {
    const opened = await openDatabase(database.url);
    try {
      await sql`insert into kysely_migration (name, timestamp) values ('9999_from_the_future', ${new Date().toISOString()})`.execute(
        opened.db,
      );
      const status = JSON.parse((await admin('status', '--json')).stdout);
      assert.deepEqual(status.unknown, ['9999_from_the_future']);
      const run = await admin('migrate');
      assert.equal(run.code, 1);
      assert.match(run.stderr, /migrations this version does not know \(9999_from_the_future\): a newer version made it/);
    } finally {
      await sql`delete from kysely_migration where name = '9999_from_the_future'`.execute(opened.db);
      await opened.db.destroy();
    }
  });
});
