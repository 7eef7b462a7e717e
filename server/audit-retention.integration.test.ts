import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { startAuditRetention } from './audit-retention.js';
import { createLogger } from './logger.js';
import { TEST_SETUP } from './testing/test-setup.js';
import { newUserRecord, openInspectedStore, openTestStore, TEST_STORE, type TestStore } from './store/testing/open-test-store.js';
import { createTestDatabase } from './testing/database.js';
import type { StoreInspection } from './store/testing/inspection.js';

/**
 * Makes events look recorded at `time`: their time, and an id that carries it, as the trail
 * records them (store/event-ids.ts). Those of these users, or every one.
 */
async function recordedAt(inspection: StoreInspection, time: string, userIds?: readonly string[]): Promise<void> {
  for (const row of await inspection.rows('audit_events')) {
    if (userIds && !userIds.includes(String(row.target_user_id))) continue;
    const eventId = uuidv7({ msecs: Date.parse(time) });
    await inspection.execute(sql`update audit_events set time = ${time}, event_id = ${eventId} where position = ${row.position}`);
  }
}

describe(`audit retention (${TEST_STORE})`, () => {
  let opened: TestStore;
  before(async () => {
    opened = await openTestStore();
  });
  after(() => opened.close());

  it('deletes the events past AUDIT_RETENTION_DAYS, batch by batch, and only those', async () => {
    const { store, inspection } = opened;
    const users = [];
    for (let index = 0; index < 9; index++) users.push((await store.users.create(newUserRecord(), TEST_SETUP)).record);
    // Five events a year and a day old, one exactly 30 days old and a minute, three recent.
    const now = new Date('2026-11-23T12:00:00.000Z');
    const aged = (days: number, minutes = 0) => new Date(now.getTime() - days * 86_400_000 - minutes * 60_000).toISOString();
    for (const [index, user] of users.entries()) {
      const time = index < 5 ? aged(366) : index === 5 ? aged(30, 1) : aged(0, 5);
      await recordedAt(inspection, time, [user.user_id]);
    }
    let logged = '';
    const logger = createLogger(
      'info',
      new Writable({
        write: (chunk, _encoding, done) => {
          logged += String(chunk);
          done();
        },
      }),
    );

    const yearly = startAuditRetention(store, { days: 365, batch: 2, logger, now: () => now, intervalMs: 3_600_000 });
    try {
      assert.equal(await yearly.pruneNow(), 5, 'five events, in batches of two');
    } finally {
      yearly.stop();
    }
    const left = (await inspection.rows('audit_events')).map((row) => row.target_user_id);
    assert.deepEqual(
      left.sort(),
      users
        .slice(5)
        .map((user) => user.user_id)
        .sort(),
    );
    assert.match(logged, /"pruned":5/);

    const monthly = startAuditRetention(store, { days: 30, logger, now: () => now, intervalMs: 3_600_000 });
    try {
      assert.equal(await monthly.pruneNow(), 1, 'only the one older than 30 days');
      assert.equal(await monthly.pruneNow(), 0, 'nothing twice');
    } finally {
      monthly.stop();
    }
    assert.equal((await inspection.rows('audit_events')).length, 3);
  });

  it('lets go of the heads of chains left with no event, and numbers new events after the deleted ones once none is left', async () => {
    const own = await openTestStore();
    try {
      const { store, inspection } = own;
      const logger = createLogger('silent');
      const [kept, gone, recent] = [newUserRecord(), newUserRecord(), newUserRecord()];
      for (const user of [kept, gone, recent]) await store.users.create(user, TEST_SETUP);
      await store.users.update(kept.user_id, { first_name: 'Kept' }, TEST_SETUP);
      for (const user of [gone, recent]) await store.users.delete(user.user_id, TEST_SETUP);
      const heads = async () => (await inspection.rows('user_event_heads')).map((row) => row.user_id).sort();
      const now = new Date('2027-12-01T00:00:00.000Z');
      const prune = async () => {
        const retention = startAuditRetention(store, { days: 365, batch: 2, logger, now: () => now, intervalMs: 3_600_000 });
        try {
          return await retention.pruneNow();
        } finally {
          retention.stop();
        }
      };

      // Kept's and Gone's events are past their age; Recent's are not.
      await recordedAt(inspection, '2026-01-01T00:00:00.000Z', [kept.user_id, gone.user_id]);
      await recordedAt(inspection, '2027-11-30T00:00:00.000Z', [recent.user_id]);
      assert.equal(await prune(), 4);
      // A deleted user's head is kept on both stores, a live one's in the table on PostgreSQL only.
      assert.deepEqual(await heads(), [recent.user_id], 'Gone’s head went with his events, Recent’s stays');
      assert.deepEqual(
        (await store.audit.list({ pageSize: 10, targetUserId: recent.user_id })).events.map((event) => event.operation),
        ['deleteUser', 'createUser'],
      );

      // Now every event, the newest included.
      const last = await store.audit.head();
      await recordedAt(inspection, '2026-01-01T00:00:00.000Z');
      assert.equal(await prune(), 2);
      assert.deepEqual(await inspection.rows('audit_events'), []);
      assert.deepEqual(await heads(), []);

      // The next event comes after every event there was: a follower at the old head sees it.
      await store.users.update(kept.user_id, { last_name: 'Again' }, TEST_SETUP);
      const [event] = await inspection.rows('audit_events');
      assert.ok(Number(event?.position) > last, `position ${String(event?.position)} after ${last}`);
      const followed = await store.audit.feed({ after: last, since: '2026-01-01T00:00:00.000Z', limit: 10 });
      assert.deepEqual(
        followed.events.map((placed) => [placed.event.type, placed.event.data.resource.id]),
        [['user.updated', kept.user_id]],
      );
      assert.deepEqual(
        (await store.audit.list({ pageSize: 10, targetUserId: kept.user_id })).events.map((event) => event.operation),
        ['updateUser'],
      );
      assert.deepEqual(await store.audit.list({ pageSize: 10, targetUserId: gone.user_id }), { events: [], more: false });
    } finally {
      await own.close();
    }
  });

  it('migration 0019 numbers on after the positions still named, on a trail emptied before it', async () => {
    const database = await createTestDatabase();
    try {
      const emptied = await openInspectedStore(database.url);
      const user = newUserRecord();
      let last: number;
      try {
        await emptied.store.users.create(user, TEST_SETUP);
        await emptied.store.users.update(user.user_id, { first_name: 'Before' }, TEST_SETUP);
        last = await emptied.store.audit.head();
        // What a retention before 0019 left: no event, and the user's head naming the last.
        await emptied.inspection.execute(sql`delete from audit_events`);
        await emptied.inspection.execute(sql`drop table audit_positions`);
        // 0019 and those after it run again (names in the order they apply).
        await emptied.inspection.execute(sql`delete from kysely_migration where name >= '0019_audit_positions'`);
      } finally {
        await emptied.store.close();
      }
      const migrated = await openInspectedStore(database.url);
      try {
        await migrated.store.users.update(user.user_id, { first_name: 'After' }, TEST_SETUP);
        const [event] = await migrated.inspection.rows('audit_events');
        assert.ok(Number(event?.position) > last, `position ${String(event?.position)} after ${last}`);
      } finally {
        await migrated.store.close();
      }
    } finally {
      await database.drop();
    }
  });
});
