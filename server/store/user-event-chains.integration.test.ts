/**
 * A user's events found along the user's chain (user-event-chains.ts), not an
 * index by user: whatever changed the user, through deletion and a new user
 * under the same id, after a refused write, a page at a time, and for the
 * events written before migration 0018.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RawBuilder, sql } from 'kysely';
import { randomBytes } from 'node:crypto';
import { NameTakenError, type AuditPage, type NewUserRecord } from './records.js';
import type { Store } from './repositories.js';
import { AuditWriter } from './audit-repository.js';
import { openDatabase } from './open-store.js';
import { newUserRecord, openInspectedStore, TEST_STORE } from './testing/open-test-store.js';
import type { StoreInspection } from './testing/inspection.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { TEST_SETUP } from '../testing/test-setup.js';

/** Two users' changes of every kind: Ada's through deletion and a new user under her id. */
async function writeHistory(store: Store) {
  const ada = newUserRecord();
  const bob = newUserRecord();
  const groupId = randomBytes(16).toString('hex');
  await store.users.create(ada, TEST_SETUP);
  await store.users.create(bob, TEST_SETUP);
  await store.users.update(ada.user_id, { first_name: 'Ada' }, TEST_SETUP);
  await store.users.update(bob.user_id, { first_name: 'Bob' }, TEST_SETUP);
  // Both members in one write: their events in one statement (recordAll).
  await store.groups.create({ group_id: groupId, name: `Engineers ${groupId}`, members: [ada.user_id, bob.user_id] }, TEST_SETUP);
  await assert.rejects(store.users.update(ada.user_id, { username: bob.username }, TEST_SETUP), NameTakenError);
  await store.groups.removeMember(ada.user_id, groupId, TEST_SETUP);
  await store.users.delete(ada.user_id, TEST_SETUP);
  // A new user under the deleted one's id: the id's history goes on.
  await store.users.create({ ...newUserRecord(), user_id: ada.user_id }, TEST_SETUP);
  await store.users.update(ada.user_id, { last_name: 'Lovelace' }, TEST_SETUP);
  return { ada, bob };
}

describe(`each user's events along a chain (${TEST_STORE})`, () => {
  let database: TestDatabase;
  let store: Store;
  let inspection: StoreInspection;
  let ada: NewUserRecord;
  let bob: NewUserRecord;

  before(async () => {
    database = await createTestDatabase();
    ({ store, inspection } = await openInspectedStore(database.url));
    ({ ada, bob } = await writeHistory(store));
  });
  after(async () => {
    await store.close();
    await database.drop();
  });

  const adaHistory = ['updateUser', 'createUser', 'deleteUser', 'removeUserGroup', 'addUserGroup', 'updateUser', 'createUser'];
  const operations = (page: AuditPage) => page.events.map((event) => event.operation);

  /** Every page of a user's events, `pageSize` at a time, by cursor. */
  async function pages(on: Store, userId: string, pageSize: number): Promise<AuditPage[]> {
    const found: AuditPage[] = [];
    let cursor: string | undefined;
    do {
      const page = await on.audit.list({ pageSize, targetUserId: userId, ...(cursor ? { after: cursor } : {}) });
      found.push(page);
      cursor = page.more ? page.events.at(-1)?.event_id : undefined;
    } while (cursor);
    return found;
  }

  it('finds every change of a user, newest first, through deletion, membership and a refused write', async () => {
    assert.deepEqual(operations(await store.audit.list({ pageSize: 100, targetUserId: ada.user_id })), adaHistory);
    assert.deepEqual(operations(await store.audit.list({ pageSize: 100, targetUserId: bob.user_id })), [
      'addUserGroup',
      'updateUser',
      'createUser',
    ]);
    const all = await store.audit.list({ pageSize: 100, targetUserId: ada.user_id });
    assert.ok(
      all.events.every((event) => event.target_user_id === ada.user_id),
      'only the user’s events',
    );
  });

  it('pages by cursor, each event once, and tells whether more follow', async () => {
    const paged = await pages(store, ada.user_id, 2);
    assert.deepEqual(
      paged.map((page) => [operations(page), page.more]),
      [
        [adaHistory.slice(0, 2), true],
        [adaHistory.slice(2, 4), true],
        [adaHistory.slice(4, 6), true],
        [adaHistory.slice(6), false],
      ],
    );
  });

  it('filters along the chain, and takes a cursor from another listing as "older than that event"', async () => {
    assert.deepEqual(operations(await store.audit.list({ pageSize: 1, targetUserId: ada.user_id, operation: 'updateUser' })), [
      'updateUser',
    ]);
    const updates = await store.audit.list({ pageSize: 10, targetUserId: ada.user_id, operation: 'updateUser' });
    assert.equal(updates.events.length, 2);
    assert.equal(updates.more, false);
    // Bob's membership came just after Ada's, in the same statement.
    const [bobsMembership] = (await store.audit.list({ pageSize: 1, targetUserId: bob.user_id })).events;
    assert.deepEqual(
      operations(await store.audit.list({ pageSize: 10, targetUserId: ada.user_id, after: bobsMembership!.event_id })),
      adaHistory.slice(4),
    );
    assert.deepEqual(await store.audit.list({ pageSize: 10, targetUserId: 'f'.repeat(32) }), { events: [], more: false });
  });

  it('keeps each head where the write goes anyway: on a live user’s row on SQLite, in user_event_heads otherwise', async () => {
    const [newest] = await inspection.execute(
      sql<{ position: number | string }>`select max(position) as position from audit_events where target_user_id = ${bob.user_id}`,
    );
    const kept = await inspection.execute(
      sql<{ position: number | string }>`select position from user_event_heads where user_id = ${bob.user_id}`,
    );
    if (TEST_STORE === 'sqlite') {
      const [row] = await inspection.execute(
        sql<{ head: number }>`select last_event_position as head from users where user_id = ${bob.user_id}`,
      );
      assert.equal(row?.head, Number(newest?.position));
      assert.deepEqual(kept, [], 'no second copy for a user with a row');
    } else {
      assert.deepEqual(
        kept.map((head) => Number(head.position)),
        [Number(newest?.position)],
      );
    }
  });

  it('links each event of one statement to the one before it, the same user’s included', async () => {
    const opened = await openDatabase(database.url);
    const [carol, dave] = [newUserRecord(), newUserRecord()];
    try {
      await store.users.create(carol, TEST_SETUP);
      await opened.db.transaction().execute((trx) =>
        new AuditWriter(opened.db, opened.traits).recordAll(trx, TEST_SETUP, [
          { operation: 'addUserGroup', targetUserId: carol.user_id, targetGroupId: 'd'.repeat(32) },
          { operation: 'addUserGroup', targetUserId: dave.user_id, targetGroupId: 'd'.repeat(32) },
          { operation: 'removeUserGroup', targetUserId: carol.user_id, targetGroupId: 'd'.repeat(32) },
        ]),
      );
    } finally {
      await opened.db.destroy();
    }
    assert.deepEqual(operations(await store.audit.list({ pageSize: 10, targetUserId: carol.user_id })), [
      'removeUserGroup',
      'addUserGroup',
      'createUser',
    ]);
    // Dave has no row: his head is kept apart from the start.
    assert.deepEqual(operations(await store.audit.list({ pageSize: 10, targetUserId: dave.user_id })), ['addUserGroup']);
  });

  it('ends a walk even where a row was edited to point forward', async () => {
    const [newest] = await inspection.execute(
      sql<{ position: number | string }>`select max(position) as position from audit_events where target_user_id = ${bob.user_id}`,
    );
    await inspection.execute(sql`update audit_events set previous_user_position = position where position = ${newest!.position}`);
    try {
      assert.deepEqual(operations(await store.audit.list({ pageSize: 10, targetUserId: bob.user_id })), ['addUserGroup']);
    } finally {
      const [before] = await inspection.execute(
        sql<{ position: number | string }>`select max(position) as position from audit_events
          where target_user_id = ${bob.user_id} and position < ${newest!.position}`,
      );
      await inspection.execute(
        sql`update audit_events set previous_user_position = ${before!.position} where position = ${newest!.position}`,
      );
    }
  });

  it('stays with its user where a head or a link names another user’s event', async () => {
    // As a trail emptied by its retention left it before migration 0019: positions numbered from 1 again.
    const [erin, frank] = [newUserRecord(), newUserRecord()];
    // Frank's events before Erin's, as a renumbered trail's older events would be.
    for (const user of [frank, erin]) {
      await store.users.create(user, TEST_SETUP);
      await store.users.update(user.user_id, { first_name: 'Again' }, TEST_SETUP);
    }
    const positions = async (userId: string) =>
      (
        await inspection.execute(
          sql<{ position: number | string }>`select position from audit_events where target_user_id = ${userId} order by position desc`,
        )
      ).map((row) => Number(row.position));
    const [erinsNewest] = await positions(erin.user_id);
    const [franksNewest, franksFirst] = await positions(frank.user_id);
    await inspection.execute(sql`update audit_events set previous_user_position = ${franksFirst} where position = ${erinsNewest}`);
    assert.deepEqual(operations(await store.audit.list({ pageSize: 10, targetUserId: erin.user_id })), ['updateUser']);
    await inspection.execute(
      TEST_STORE === 'sqlite'
        ? sql`update users set last_event_position = ${franksNewest} where user_id = ${erin.user_id}`
        : sql`update user_event_heads set position = ${franksNewest} where user_id = ${erin.user_id}`,
    );
    assert.deepEqual(await store.audit.list({ pageSize: 10, targetUserId: erin.user_id }), { events: [], more: false });
  });

  it('migration 0018 chains the events written before it and drops the index by user', async () => {
    const own = await createTestDatabase();
    const before = await openInspectedStore(own.url);
    let expected: AuditPage[];
    let written: Awaited<ReturnType<typeof writeHistory>>;
    try {
      written = await writeHistory(before.store);
      expected = await pages(before.store, written.ada.user_id, 3);
      // Back to before 0018: no chains, no heads, the index by user (and nothing of 0019).
      const undo = (statement: RawBuilder<unknown>) => before.inspection.execute(statement);
      await undo(sql`drop table audit_positions`);
      // 0019 and those after it run again (names in the order they apply).
      await undo(sql`delete from kysely_migration where name >= '0019_audit_positions'`);
      if (TEST_STORE === 'postgres') {
        await undo(sql`drop trigger audit_events_link_user on audit_events`);
        await undo(sql`drop function audit_events_link_user()`);
      } else {
        await undo(sql`drop trigger audit_events_move_user_head`);
        await undo(sql`drop trigger users_keep_event_head`);
        await undo(sql`alter table users drop column last_event_position`);
      }
      await undo(sql`drop table user_event_heads`);
      await undo(sql`alter table audit_events drop column previous_user_position`);
      await undo(sql`create index audit_events_target_user_idx on audit_events (target_user_id, event_id)`);
      await undo(sql`delete from kysely_migration where name = '0018_user_event_chains'`);
    } finally {
      await before.store.close();
    }

    const migrated = await openInspectedStore(own.url);
    try {
      const { ada, bob } = written;
      assert.deepEqual(await pages(migrated.store, ada.user_id, 3), expected);
      assert.deepEqual(operations(await migrated.store.audit.list({ pageSize: 100, targetUserId: bob.user_id })), [
        'addUserGroup',
        'updateUser',
        'createUser',
      ]);
      // And the chains go on from the migrated heads.
      await migrated.store.users.update(bob.user_id, { organization: 'Analytical Engines' }, TEST_SETUP);
      assert.deepEqual(operations(await migrated.store.audit.list({ pageSize: 2, targetUserId: bob.user_id })), [
        'updateUser',
        'addUserGroup',
      ]);
      const indexes = await migrated.inspection.execute(
        TEST_STORE === 'sqlite'
          ? sql<{ definition: string }>`select sql as definition from sqlite_master
              where type = 'index' and tbl_name = 'audit_events' and sql is not null`
          : sql<{ definition: string }>`select indexdef as definition from pg_indexes where tablename = 'audit_events'`,
      );
      assert.ok(indexes.length > 0, 'the other indexes are read');
      assert.deepEqual(
        indexes.filter((index) => index.definition.includes('target_user_id')),
        [],
      );
    } finally {
      await migrated.store.close();
      await own.drop();
    }
  });
});
