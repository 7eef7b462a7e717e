/**
 * What only PostgreSQL has to get right about groups: its writers run at once,
 * and they lock rows in different orders (a membership, then the group's
 * version; the group's version, then memberships and their users), so two of
 * them could each wait for the other until one was killed as deadlocked. Each
 * takes the group's lock first (group-repository.ts). Checked by holding that
 * lock from another connection: every writer waits for it, and completes once
 * it is let go.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { TEST_SETUP } from '../../testing/test-setup.js';
import { createTestDatabase, type TestDatabase } from '../../testing/database.js';
import { groupLockName } from '../group-repository.js';
import type { Store } from '../repositories.js';
import { newUserRecord, openInspectedStore } from '../testing/open-test-store.js';

describe('PostgreSQL: the writers of one group', () => {
  let database: TestDatabase;
  let store: Store;
  let holder: pg.Client;
  before(async () => {
    assert.ok(process.env.TEST_POSTGRES_URL, 'run through scripts/with-postgres.ts (the PostgreSQL pass of npm run test:integration)');
    database = await createTestDatabase();
    store = (await openInspectedStore(database.url)).store;
    holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
  });
  after(async () => {
    await holder?.end();
    await store?.close();
    await database?.drop();
  });

  it('each waits for the lock of its group, held by another, and then completes', async () => {
    const [ada, bob, eve] = await Promise.all(
      [1, 2, 3].map(async () => (await store.users.create(newUserRecord(), TEST_SETUP)).record.user_id),
    );
    const [kept, deleted] = ['a'.repeat(32), 'b'.repeat(32)];
    await store.groups.create({ group_id: kept, name: 'Kept', members: [bob!] }, TEST_SETUP);
    await store.groups.create({ group_id: deleted, name: 'Deleted' }, TEST_SETUP);

    await holder.query('begin');
    for (const groupId of [kept, deleted]) await holder.query('select pg_advisory_xact_lock(hashtext($1))', [groupLockName(groupId)]);
    let completed = 0;
    const writes = [
      store.groups.addMember(ada!, kept, TEST_SETUP),
      store.groups.removeMember(bob!, kept, TEST_SETUP),
      store.groups.amend(kept, { addMembers: [eve!], removeMembers: [] }, TEST_SETUP),
      store.groups.rewrite(kept, { name: 'Kept, renamed' }, TEST_SETUP),
      store.groups.delete(deleted, TEST_SETUP),
    ].map((write) => write.finally(() => completed++));
    const waiting = async () =>
      Number((await holder.query(`select count(*) from pg_locks where locktype = 'advisory' and not granted`)).rows[0].count);
    // Until every writer waits for the lock, or one has got past it: that one did not take it.
    while ((await waiting()) < writes.length && completed === 0) await new Promise((resolve) => setImmediate(resolve));
    assert.equal(completed, 0, 'a writer went on while another held the group');
    await holder.query('commit');

    const [added, removed, amended, rewritten, gone] = await Promise.all(writes);
    assert.deepEqual([added, removed, gone], ['done', 'done', 'deleted']);
    for (const result of [amended, rewritten]) assert.equal(typeof result, 'object', JSON.stringify(result));
    const group = (await store.groups.find(kept))!;
    assert.deepEqual(group.members?.map((member) => member.user_id).sort(), [ada!, eve!].sort());
    assert.equal(group.record.name, 'Kept, renamed');
  });
});
