/**
 * The change feed's rules, on each store: every change told once, in the order
 * of commit, thinly; nothing for a change that did not happen; cursors, filters,
 * expiry, and a waiting follower woken by a commit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openTestStore, TEST_STORE, type TestStore } from '../store/testing/open-test-store.js';
import { aGroup, aKey, aUser, freshUsername } from '../testing/factories.js';
import { assertRefuses } from '../testing/refusals.js';
import { TEST_SETUP } from '../testing/test-setup.js';
import { changeFeed, encodeCursor } from './change-feed.js';
import { type ChangeEvent, createDirectory, type Directory, type FeedRequest } from './index.js';

describe(`the change feed (${TEST_STORE})`, () => {
  let opened: TestStore;
  let directory: Directory;
  before(async () => {
    opened = await openTestStore();
    directory = createDirectory(opened.store);
  });
  after(() => opened.close());

  /** Follows from `cursor` until the feed has nothing more: every event, and where to go on from. */
  async function followAll(cursor: string | undefined, request: Omit<FeedRequest, 'after'> = {}) {
    const events: ChangeEvent[] = [];
    for (;;) {
      const page = await directory.events.follow({ ...request, ...(cursor === undefined ? {} : { after: cursor }) });
      events.push(...page.events);
      cursor = page.nextCursor;
      if (page.events.length < (request.limit ?? 100)) return { events, cursor };
    }
  }
  const headCursor = async () => (await followAll(undefined, { limit: 1000 })).cursor;

  it('tells every change in the order of commit: its type, the version after it, the fields by name, who made it', async () => {
    const start = await headCursor();
    const user = await aUser(directory, { password: 'Correct-Horse-42' });
    const id = user.record.user_id;
    const renamed = await directory.users.update(id, { first_name: 'Ada' }, TEST_SETUP);
    const group = await aGroup(directory);
    await directory.groups.addMember(id, group.group_id, TEST_SETUP);
    await directory.groups.removeMember(id, group.group_id, TEST_SETUP);
    const loggedOut = await directory.users.logout(id, TEST_SETUP);
    await directory.attributes.update(id, { theme: 'Dark' }, TEST_SETUP);
    await directory.users.delete(id, TEST_SETUP);

    const { events } = await followAll(start, { resourceId: id });
    assert.deepEqual(
      events.map((event) => event.type),
      [
        'user.created',
        'user.updated',
        'group.member_added',
        'group.member_removed',
        'user.logged_out',
        'user.attributes_updated',
        'user.deleted',
      ],
    );
    const [created, updated, added, removed, logout] = events as [ChangeEvent, ChangeEvent, ChangeEvent, ChangeEvent, ChangeEvent];
    assert.deepEqual(created.data.resource, { type: 'user', id, version: user.version });
    assert.ok(created.data.changed.includes('password') && created.data.changed.includes('username'));
    assert.deepEqual(updated.data, {
      resource: { type: 'user', id, version: renamed.version },
      changed: ['first_name'],
      actor: { type: 'admin', id: null },
      request_id: null,
    });
    assert.deepEqual([added.data.resource.type, added.data.resource.id, added.data.member], ['group', group.group_id, { user_id: id }]);
    assert.equal(removed.data.resource.version, (added.data.resource.version ?? 0) + 1, "each membership moves the group's version");
    assert.equal(logout.data.resource.version, loggedOut.version);
    const ids = events.map((event) => event.event_id);
    assert.equal(new Set(ids).size, ids.length, 'each event once');
  });

  it('tells nothing of a change refused or rolled back', async () => {
    const taken = await aUser(directory);
    const start = await headCursor();
    await assertRefuses(aUser(directory, { username: taken.record.username }), { kind: 'name_taken' });
    // The group is inserted, and its event written, before its members are found missing: all undone.
    await assertRefuses(aGroup(directory, { members: ['0'.repeat(32)] }), { kind: 'unknown_members' });
    await assertRefuses(directory.users.update(taken.record.user_id, { first_name: 'x' }, TEST_SETUP, [taken.version + 5]), {
      kind: 'stale_version',
    });
    assert.deepEqual((await followAll(start)).events, []);
  });

  it('pages on from each next_cursor exactly once, by type (with user.*) and by resource', async () => {
    const start = await headCursor();
    const made = [];
    for (let count = 0; count < 5; count++) made.push((await aUser(directory)).record.user_id);
    await aGroup(directory);
    const users = await followAll(start, { types: ['user.*'], limit: 2 });
    assert.deepEqual(
      users.events.map((event) => event.data.resource.id),
      made,
    );
    const groups = await followAll(start, { types: ['group.created'] });
    assert.deepEqual(
      groups.events.map((event) => event.type),
      ['group.created'],
    );
    assert.deepEqual((await followAll(users.cursor, { types: ['user.*'] })).events, [], 'nothing twice');
  });

  it('refuses a cursor it did not hand out, and one older than the feed reaches (410)', async () => {
    let now = Date.now();
    const feed = changeFeed(opened.store, { retentionDays: 30, now: () => now });
    const { nextCursor } = await feed.follow({ limit: 1000 });
    now += 29 * 86_400_000;
    await feed.follow({ after: nextCursor });
    now += 2 * 86_400_000;
    await assertRefuses(feed.follow({ after: nextCursor }), { kind: 'cursor_expired', retentionDays: 30 });
    const fresh = (await feed.follow({ limit: 1000 })).nextCursor;
    await feed.follow({ after: fresh });
    await assertRefuses(feed.follow({ after: 'bm90LWEtY3Vyc29y' }), { kind: 'invalid_cursor' });
  });

  it('refuses a cursor past every event the database has had, and one read before a restore (410)', async () => {
    const cursor = (position: number, readTo: number) => encodeCursor({ position, readTo });
    const { reached } = await opened.store.audit.order();
    const now = Date.now();
    await directory.events.follow({ after: cursor(reached, now) });
    // A follower of a database whose backup this one is, which saw events the backup missed.
    await assertRefuses(directory.events.follow({ after: cursor(reached + 3, now) }), { kind: 'cursor_expired', restored: true });
    await opened.inspection.execute(sql`update audit_positions set restored_at = ${new Date(now + 1000).toISOString()}`);
    try {
      await assertRefuses(directory.events.follow({ after: cursor(reached, now) }), { kind: 'cursor_expired', restored: true });
      await directory.events.follow({ after: cursor(reached, now + 2000) });
    } finally {
      await opened.inspection.execute(sql`update audit_positions set restored_at = null`);
    }
    // Without the row of audit_positions (edited by hand), the events alone say how far they reached.
    const [kept] = await opened.inspection.execute(sql<{ last_pruned: number | string }>`select last_pruned from audit_positions`);
    await opened.inspection.execute(sql`delete from audit_positions`);
    try {
      await directory.events.follow({ after: cursor(reached, now) });
    } finally {
      await opened.inspection.execute(sql`insert into audit_positions (id, last_pruned) values (1, ${kept!.last_pruned})`);
    }
  });

  it('answers a waiting follower within 100 ms of a commit', async () => {
    const start = await headCursor();
    const waiting = directory.events.follow({ after: start, waitSeconds: 10 });
    await new Promise((resolve) => setTimeout(resolve, 150));
    const user = await aUser(directory);
    const committed = performance.now();
    const { events } = await waiting;
    const latency = performance.now() - committed;
    assert.deepEqual(
      events.map((event) => event.data.resource.id),
      [user.record.user_id],
    );
    assert.ok(latency < 100, `answered ${latency.toFixed(0)} ms after the commit`);
  });

  it('holds no secret, password or hash in any event', async () => {
    const start = await headCursor();
    const password = 'Secret-Horse-99';
    const user = await aUser(directory, { username: freshUsername('secretive'), password });
    await directory.users.update(user.record.user_id, { password: 'Other-Secret-77' }, TEST_SETUP);
    const { secret } = await aKey(directory, { permissions: ['users_view'] });
    const hash = await opened.inspection.passwordHash(user.record.user_id);
    const told = JSON.stringify((await followAll(start)).events);
    for (const value of [password, 'Other-Secret-77', secret, hash!]) assert.ok(!told.includes(value), 'a secret in an event');
  });
});
