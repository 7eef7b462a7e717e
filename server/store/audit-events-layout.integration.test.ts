/**
 * Migration 0020: the trail in the order of its positions on SQLite (the
 * position its rowid) and an index by group of the events about a group only,
 * on a trail that migration 0019 left: every event kept as it was, and the
 * trail goes on (positions, chains) from where it was.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import type { Store } from './repositories.js';
import { newUserRecord, openInspectedStore, TEST_STORE } from './testing/open-test-store.js';
import type { StoreInspection } from './testing/inspection.js';
import { createTestDatabase } from '../testing/database.js';
import { TEST_SETUP } from '../testing/test-setup.js';

/** The trail as migration 0019 left it: the position a column with an index of its own, every event in the index by group. */
async function backTo0019(inspection: StoreInspection): Promise<void> {
  const run = (statement: string) => inspection.execute(sql.raw(statement));
  if (TEST_STORE === 'postgres') {
    await run('drop index audit_events_group_idx');
    await run('create index audit_events_group_idx on audit_events (target_group_id, position)');
  } else {
    const triggers = await inspection.execute(
      sql<{ definition: string }>`select sql as definition from sqlite_master where type = 'trigger' and tbl_name = 'audit_events'`,
    );
    const columns =
      'event_id, time, operation, actor, request_id, target_user_id, target_group_id, target_api_key, changed_fields, protocol, resource_version, position, target_webhook_id, previous_user_position';
    await run(`create table audit_events_0019 (event_id text primary key, time text not null, operation text not null,
      actor text not null, request_id text, target_user_id text, target_group_id text, target_api_key text,
      changed_fields text not null, protocol text, resource_version integer, position integer, target_webhook_id text,
      previous_user_position integer)`);
    await run(`insert into audit_events_0019 (${columns}) select ${columns} from audit_events`);
    await run('drop table audit_events');
    await run('alter table audit_events_0019 rename to audit_events');
    await run('create index audit_events_actor_idx on audit_events (actor, event_id)');
    await run('create index audit_events_time_idx on audit_events (time)');
    await run('create unique index audit_events_position_idx on audit_events (position)');
    await run('create index audit_events_group_idx on audit_events (target_group_id, position)');
    for (const { definition } of triggers) await run(definition);
  }
  await run(`delete from kysely_migration where name >= '0020_audit_events_by_position'`);
}

async function history(store: Store) {
  const user = newUserRecord();
  const groupId = randomBytes(16).toString('hex');
  await store.users.create(user, TEST_SETUP);
  await store.users.update(user.user_id, { first_name: 'Grace' }, TEST_SETUP);
  await store.groups.create({ group_id: groupId, name: `Compilers ${groupId}`, members: [user.user_id] }, TEST_SETUP);
  return { user, groupId };
}

const byPosition = (rows: Record<string, unknown>[]) => rows.toSorted((a, b) => Number(a.position) - Number(b.position));

describe(`migration 0020: the trail by position (${TEST_STORE})`, () => {
  it('keeps every event, and the trail goes on from where it was', async () => {
    const database = await createTestDatabase();
    try {
      const before = await openInspectedStore(database.url);
      let written: Awaited<ReturnType<typeof history>>;
      let events: Record<string, unknown>[];
      try {
        written = await history(before.store);
        events = byPosition(await before.inspection.rows('audit_events'));
        await backTo0019(before.inspection);
      } finally {
        await before.store.close();
      }

      const migrated = await openInspectedStore(database.url);
      try {
        assert.deepEqual(byPosition(await migrated.inspection.rows('audit_events')), events);
        const indexes = await migrated.inspection.execute(
          TEST_STORE === 'sqlite'
            ? sql<{ name: string; definition: string }>`select name, sql as definition from sqlite_master
                where type = 'index' and tbl_name = 'audit_events' and sql is not null`
            : sql<{ name: string; definition: string }>`select indexname as name, indexdef as definition from pg_indexes
                where tablename = 'audit_events'`,
        );
        const definitionOf = (name: string) => indexes.find((index) => index.name === name)?.definition ?? '';
        assert.match(definitionOf('audit_events_group_idx'), /where \(?target_group_id is not null\)?$/i);
        if (TEST_STORE === 'sqlite') {
          const columns = await migrated.inspection.execute(
            sql<{ name: string; pk: number }>`select name, pk from pragma_table_info('audit_events')`,
          );
          assert.deepEqual(
            columns.filter((column) => column.pk > 0).map((column) => column.name),
            ['position'],
            'the position is the rowid',
          );
          assert.deepEqual(indexes.map((index) => index.name).sort(), [
            'audit_events_actor_idx',
            'audit_events_event_id_idx',
            'audit_events_group_idx',
            // And none by time since migration 0022.
          ]);
          await assert.rejects(
            migrated.inspection.execute(sql`insert into audit_events (position, event_id, time, operation, actor, changed_fields)
              select 1000000, event_id, time, operation, actor, changed_fields from audit_events limit 1`),
            /UNIQUE constraint failed: audit_events\.event_id/,
          );
        }

        // The next event: numbered after the last, and linked to the user's event before it.
        const last = Math.max(...events.map((event) => Number(event.position)));
        const usersLast = Math.max(
          ...events.filter((event) => event.target_user_id === written.user.user_id).map((event) => Number(event.position)),
        );
        await migrated.store.users.update(written.user.user_id, { last_name: 'Hopper' }, TEST_SETUP);
        const [next] = byPosition(await migrated.inspection.rows('audit_events')).slice(-1);
        assert.ok(Number(next?.position) > last, `position ${String(next?.position)} after ${last}`);
        assert.equal(Number(next?.previous_user_position), usersLast);
        const page = await migrated.store.audit.list({ pageSize: 10, targetUserId: written.user.user_id });
        assert.deepEqual(
          page.events.map((event) => event.operation),
          ['updateUser', 'addUserGroup', 'updateUser', 'createUser'],
        );
        const groupEvents = events.filter((event) => event.target_group_id === written.groupId).map((event) => event.event_id);
        const feed = await migrated.store.audit.feed({ since: '1970-01-01T00:00:00.000Z', resourceId: written.groupId, limit: 10 });
        assert.ok(groupEvents.length > 0);
        assert.deepEqual(
          feed.events.map((placed) => placed.event.event_id),
          groupEvents,
          'the group’s events, found through the index of events about a group',
        );
      } finally {
        await migrated.store.close();
      }
    } finally {
      await database.drop();
    }
  });
});
