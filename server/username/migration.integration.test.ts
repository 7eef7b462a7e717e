/**
 * Migration 0003 brings the usernames stored before the username profile
 * under it, without losing a user: what the profile maps is rewritten when
 * free, the rest is kept and reported (`npm run admin -- username-report`).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openStore } from '../store/open-store.js';
import { openInspectedStore } from '../store/testing/open-test-store.js';
import { createTestDatabase, TEST_STORE, type TestDatabase } from '../testing/database.js';
import { admin } from '../testing/admin.js';

const legacy = {
  fullWidth: 'ＡＤＭＩＮ',
  upperCase: 'Carol@Example.com',
  zeroWidth: 'dave\u200b',
  cyrillic: 'аdmin',
  collides: 'ｃａｒｏｌ@example.com',
  fine: 'erin@example.com',
};

describe(`migration 0003: stored usernames under the username profile (${TEST_STORE})`, () => {
  let database: TestDatabase;
  const ids: Record<keyof typeof legacy, string> = {} as never;
  before(async () => {
    database = await createTestDatabase();
    // A database as it was before 0003: its users inserted as the old code stored them.
    const { store, inspection } = await openInspectedStore(database.url);
    const bool = TEST_STORE === 'sqlite' ? sql`0` : sql`false`;
    for (const [index, [name, username]] of Object.entries(legacy).entries()) {
      // Ids in this order, which is the migration's: the upper-case Carol claims her name before the full-width one.
      const id = `${index.toString(16)}${randomBytes(16).toString('hex').slice(1)}`;
      ids[name as keyof typeof legacy] = id;
      await inspection.execute(sql`insert into users (user_id, username, first_name, last_name, phone, organization, locked, disabled, created)
        values (${id}, ${username}, '', '', '', '', ${bool}, ${bool}, ${new Date().toISOString()})`);
    }
    // Back to before 0003: the tables of 0003 and of every later migration go, and their records.
    if (TEST_STORE === 'postgres') {
      await inspection.execute(sql`drop function audit_events_link_user() cascade`);
    } else {
      await inspection.execute(sql`drop trigger audit_events_move_user_head`);
      await inspection.execute(sql`drop trigger users_keep_event_head`);
      await inspection.execute(sql`alter table users drop column last_event_position`);
    }
    await inspection.execute(sql`drop table user_event_heads`);
    await inspection.execute(sql`drop table audit_positions`);
    await inspection.execute(sql`drop table username_reports`);
    await inspection.execute(sql`drop table password_history`);
    await inspection.execute(sql`drop table idempotency_keys`);
    await inspection.execute(sql`drop table console_sessions`);
    await inspection.execute(sql`alter table api_keys drop column last_used`);
    for (const table of ['webhook_attempts', 'webhook_deliveries', 'webhook_dispatch', 'webhooks']) {
      await inspection.execute(sql`drop table ${sql.table(table)}`);
    }
    await inspection.execute(sql`drop table audit_events`);
    await inspection.execute(sql`drop table user_attributes`);
    await inspection.execute(sql`alter table users drop column sessions_valid_from`);
    await inspection.execute(sql`alter table groups drop column description`);
    await inspection.execute(sql`alter table groups drop column priority`);
    await inspection.execute(sql`drop index users_external_id_idx`);
    await inspection.execute(sql`alter table users drop column external_id`);
    await inspection.execute(sql`alter table users drop column emails`);
    await inspection.execute(sql`alter table groups drop column external_id`);
    for (const table of ['users', 'groups']) {
      await inspection.execute(sql`drop index ${sql.raw(`${table}_external_id_key_idx`)}`);
      await inspection.execute(sql`alter table ${sql.table(table)} drop column external_id_key`);
    }
    await inspection.execute(sql`drop index groups_name_key_idx`);
    await inspection.execute(sql`alter table groups drop column name_key`);
    for (const table of ['users', 'groups']) {
      await inspection.execute(sql`alter table ${sql.table(table)} drop column version`);
      await inspection.execute(sql`alter table ${sql.table(table)} drop column modified`);
    }
    await inspection.execute(sql`delete from kysely_migration where name >= '0003'`);
    await store.close();
  });
  after(() => database.drop());

  it('rewrites what the profile maps, keeps and reports the rest, and loses no user', async () => {
    const store = await openStore(database.url);
    try {
      const stored = async (id: string) => (await store.users.findById(id))?.record.username;
      assert.equal(await stored(ids.fullWidth), 'admin');
      assert.equal(await stored(ids.upperCase), 'carol@example.com');
      assert.equal(await stored(ids.fine), 'erin@example.com');
      for (const kept of ['zeroWidth', 'cyrillic', 'collides'] as const)
        assert.equal(await stored(ids[kept]), legacy[kept], `${kept} kept as it was`);

      const reports = await store.users.listUsernameReports();
      assert.deepEqual(reports.map((report) => report.user_id).sort(), [ids.zeroWidth, ids.cyrillic, ids.collides].sort());
      const reason = (id: string) => reports.find((report) => report.user_id === id)!.reason;
      assert.match(reason(ids.zeroWidth), /invisible formatting characters .*\(U\+200B\)/);
      assert.match(reason(ids.cyrillic), /mixes letters of Cyrillic and Latin/);
      assert.match(reason(ids.collides), new RegExp(`belongs to user ${ids.upperCase}`));
    } finally {
      await store.close();
    }
  });

  it('lists the kept names for the operator, escaped for the terminal', async () => {
    const run = await admin(database.url, ['username-report']);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /dave\\u\{200B\}/);
    assert.ok(!run.stdout.includes('\u200b'));
    assert.match(run.stdout, /update_user/);
    const json = JSON.parse((await admin(database.url, ['username-report', '--json'])).stdout);
    assert.equal(json.length, 3);
  });
});
