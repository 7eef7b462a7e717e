import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { sqliteTraits } from './traits.js';
import { CommitGroup } from './commit-group.js';
import { openDatabase, type OpenedDatabase, serviceStore } from '../open-store.js';
import { IdempotencyKeyHeldError, NameTakenError, type User } from '../records.js';
import { TEST_SETUP } from '../../testing/test-setup.js';
import type { Store } from '../repositories.js';
import { inspectDatabase, type StoreInspection } from '../testing/inspection.js';
import { newUserRecord } from '../testing/open-test-store.js';

describe('group commit on SQLite', () => {
  let directory: string;
  let opened: OpenedDatabase;
  let store: Store;
  let inspection: StoreInspection;
  let users: User[];
  /** What the store told onGroupCommit: one entry per transaction, the writes it held. */
  const groups: number[] = [];
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'commit-group-'));
    opened = await openDatabase(`sqlite:${join(directory, 'users.db')}`);
    store = await serviceStore(opened, { onGroupCommit: (writes) => groups.push(writes) });
    inspection = inspectDatabase(opened);
    users = [];
    for (let index = 0; index < 50; index++) {
      users.push(
        (
          await store.users.create(
            newUserRecord({ user_id: index.toString(16).padStart(32, '0'), username: `user${index}@example.com`, organization: 'before' }),
            TEST_SETUP,
          )
        ).record,
      );
    }
  });
  after(async () => {
    await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  const organizationOf = async (user: User) => (await store.users.findById(user.user_id))?.record.organization;

  it('commits updates that arrive together in fewer transactions, each answered with its own user', async () => {
    groups.length = 0;
    const answers = await Promise.all(
      users.map((user, index) => store.users.update(user.user_id, { organization: `org-${index}` }, TEST_SETUP)),
    );
    for (const [index, answer] of answers.entries()) assert.equal(answer?.record.organization, `org-${index}`);
    for (const [index, user] of users.entries()) assert.equal(await organizationOf(user), `org-${index}`);
    assert.equal(
      groups.reduce((sum, writes) => sum + writes, 0),
      50,
    );
    assert.ok(groups.length < 50, `${groups.length} transactions for 50 updates`);
  });

  it('creates users that arrive together in fewer transactions, refusing a taken username alone', async () => {
    groups.length = 0;
    const created = Array.from({ length: 20 }, (_, index) =>
      newUserRecord({ user_id: `c${index.toString(16).padStart(31, '0')}`, username: `created${index}@example.com` }),
    );
    const outcomes = await Promise.allSettled([
      ...created.map((user) => store.users.create(user, TEST_SETUP)),
      store.users.create(newUserRecord({ username: 'created3@example.com' }), TEST_SETUP),
    ]);
    const taken = outcomes.pop();
    assert.ok(taken?.status === 'rejected' && taken.reason instanceof NameTakenError);
    for (const [index, outcome] of outcomes.entries()) {
      assert.equal(outcome.status === 'fulfilled' && outcome.value.record.username, `created${index}@example.com`);
    }
    for (const user of created) assert.equal((await store.users.findById(user.user_id))?.record.username, user.username);
    assert.equal(
      groups.reduce((sum, writes) => sum + writes, 0),
      21,
    );
    assert.ok(groups.length < 21, `${groups.length} transactions for 21 creations`);
    const events = (await inspection.rows('audit_events')).filter((row) => row.operation === 'createUser');
    const ids = new Set(created.map((user) => user.user_id));
    assert.equal(events.filter((row) => ids.has(String(row.target_user_id))).length, 20, 'one event for each user created');
  });

  it("commits a rewrite's write in the turn its read ran, and nothing where no write follows", async () => {
    groups.length = 0;
    const [first] = users;
    const order: string[] = [];
    const written = store.users.findFieldsById(first!.user_id).then(async (current) => {
      await store.users.update(first!.user_id, { organization: 'rewritten' }, TEST_SETUP, [current!.version]);
      order.push('written');
    });
    // Set to run after the read group: a write that waited for the next group would commit after it.
    const marked = new Promise((resolve) => setImmediate(() => resolve(order.push('the turn of the read'))));
    await Promise.all([written, marked]);
    assert.deepEqual(order, ['written', 'the turn of the read']);
    assert.equal(await organizationOf(first!), 'rewritten');
    assert.deepEqual(groups, [1]);

    // A read that leads to no write: the commit it reserved finds nothing to commit.
    groups.length = 0;
    await store.users.findFieldsById(first!.user_id);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(groups, []);
  });

  it('refuses a taken username without undoing the other updates of its group', async () => {
    const [first, second, third] = users as [User, User, User];
    const updateCount = async (user: User) =>
      (await inspection.rows('audit_events')).filter((row) => row.target_user_id === user.user_id && row.operation === 'updateUser').length;
    const updatesBefore = { first: await updateCount(first), third: await updateCount(third) };
    const outcomes = await Promise.allSettled([
      store.users.update(first.user_id, { organization: 'kept-1' }, TEST_SETUP),
      store.users.update(second.user_id, { username: third.username }, TEST_SETUP),
      store.users.update(third.user_id, { organization: 'kept-3' }, TEST_SETUP),
    ]);
    assert.equal(outcomes[0].status, 'fulfilled');
    assert.ok(outcomes[1].status === 'rejected' && outcomes[1].reason instanceof NameTakenError);
    assert.equal(outcomes[2].status, 'fulfilled');
    assert.equal(await organizationOf(first), 'kept-1');
    assert.equal((await store.users.findById(second.user_id))?.record.username, second.username);
    assert.equal(await organizationOf(third), 'kept-3');
    const renames = (await inspection.rows('audit_events')).filter(
      (row) => row.operation === 'updateUser' && row.changed_fields === 'username',
    );
    assert.deepEqual(renames, [], 'the refused rename has no event');
    const kept = async (user: User) =>
      (await inspection.rows('audit_events')).filter((row) => row.target_user_id === user.user_id && row.operation === 'updateUser').length;
    assert.equal(await kept(first), updatesBefore.first + 1, 'the updates kept have their events');
    assert.equal(await kept(third), updatesBefore.third + 1);
  });

  it('undoes a write refused after its first statement (an Idempotency-Key another request holds) alone, on its savepoint', async () => {
    const [, , , , , , seventh, eighth, ninth] = users;
    const now = new Date();
    const claim = {
      apiKey: 'K'.repeat(16),
      key: `held-${Date.now()}`,
      fingerprint: 'f'.repeat(64),
      holder: 'another request',
      created: now.toISOString(),
      expires: new Date(now.getTime() + 3_600_000).toISOString(),
    };
    // Another request, on another instance, holds the key.
    await store.idempotency.keep(claim, { status: 200, headers: {}, body: '{}' });
    const eighthBefore = await organizationOf(eighth!);
    const outcomes = await Promise.allSettled([
      store.users.update(seventh!.user_id, { organization: 'kept-7' }, TEST_SETUP),
      store.users.update(
        eighth!.user_id,
        { organization: 'undone-8' },
        { ...TEST_SETUP, idempotency: { ...claim, holder: 'this request' } },
      ),
      store.users.update(ninth!.user_id, { organization: 'kept-9' }, TEST_SETUP),
    ]);
    assert.equal(outcomes[0].status, 'fulfilled');
    assert.ok(outcomes[1].status === 'rejected' && outcomes[1].reason instanceof IdempotencyKeyHeldError);
    assert.equal(outcomes[2].status, 'fulfilled');
    assert.deepEqual(
      [await organizationOf(seventh!), await organizationOf(eighth!), await organizationOf(ninth!)],
      ['kept-7', eighthBefore, 'kept-9'],
      'the refused update, made before its key was found held, is undone and the others stand',
    );
    assert.equal(groups.at(-1), 3, 'the three were one group');
  });

  it('writes no event for any update of a group that rolls back', async () => {
    const [, , , fourth, fifth, sixth] = users;
    const eventsBefore = (await inspection.rows('audit_events')).length;
    // The database fails at the fifth user's event: the whole group's transaction fails.
    await inspection.execute(
      sql`create trigger audit_fault before insert on audit_events when new.target_user_id = ${sql.lit(fifth!.user_id)}
        begin select raise(abort, 'injected fault'); end`,
    );
    try {
      const outcomes = await Promise.allSettled(
        [fourth!, fifth!, sixth!].map((user) => store.users.update(user.user_id, { organization: 'rolled-back' }, TEST_SETUP)),
      );
      assert.deepEqual(
        outcomes.map((outcome) => outcome.status),
        ['rejected', 'rejected', 'rejected'],
      );
    } finally {
      await inspection.execute(sql`drop trigger audit_fault`);
    }
    assert.equal((await inspection.rows('audit_events')).length, eventsBefore);
    for (const user of [fourth!, fifth!, sixth!]) assert.notEqual(await organizationOf(user), 'rolled-back');
  });

  it('rolls the whole group back on any other failure, and every write in it fails', async () => {
    // A group of its own over the same database, to give it work that fails as no repository's would.
    const group = new CommitGroup(opened.db, (error) => sqliteTraits.isUniqueViolation(error));
    const [first, second] = users as [User, User];
    const outcomes = await Promise.allSettled([
      group.run((trx) => trx.updateTable('users').set({ organization: 'never-1' }).where('user_id', '=', first.user_id).execute()),
      group.run(async () => {
        throw new Error('the disk is full');
      }),
      group.run((trx) => trx.updateTable('users').set({ organization: 'never-2' }).where('user_id', '=', second.user_id).execute()),
    ]);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['rejected', 'rejected', 'rejected'],
    );
    assert.notEqual(await organizationOf(first), 'never-1');
    assert.notEqual(await organizationOf(second), 'never-2');
  });
});
