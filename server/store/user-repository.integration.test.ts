import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NameTakenError, type User } from './records.js';
import { TEST_SETUP } from '../testing/test-setup.js';
import type { Store } from './repositories.js';
import { newUserRecord, openTestStore, TEST_STORE, type TestStore } from './testing/open-test-store.js';

describe(`UserRepository (${TEST_STORE})`, () => {
  let opened: TestStore;
  let store: Store;
  before(async () => {
    opened = await openTestStore();
    store = opened.store;
  });
  after(() => opened.close());

  it('creates a user in the system group, with the profile as given and no password set', async () => {
    const record = newUserRecord({ first_name: 'Ada', locked: true });
    const user = await store.users.create(record, TEST_SETUP);
    assert.equal(user.user_id, record.user_id);
    assert.equal(user.first_name, 'Ada');
    assert.equal(user.locked, true, 'a boolean, whatever the database stores');
    assert.equal(user.disabled, false);
    assert.equal(user.realm, 'local');
    assert.equal(user.password_set_date, null);
    assert.deepEqual(
      user.groups.map((group) => group.name),
      ['All Users'],
    );
    assert.deepEqual(await store.users.findById(user.user_id), user);
    assert.deepEqual(await store.users.findByUsername(record.username), user);
  });

  it('records when a password was set, and keeps its hash out of the user', async () => {
    const created = new Date().toISOString();
    const user = await store.users.create(newUserRecord({ password_hash: '$argon2id$stand-in', created }), TEST_SETUP);
    assert.equal(user.password_set_date, created);
    assert.ok(!('password_hash' in user));
    assert.equal(await store.users.findPasswordHash(user.user_id), '$argon2id$stand-in');
    assert.equal(await store.users.findPasswordHash('0'.repeat(32)), undefined, 'no such user');
  });

  it('refuses a taken username with NameTakenError, on create and on update', async () => {
    const first = await store.users.create(newUserRecord(), TEST_SETUP);
    const second = await store.users.create(newUserRecord(), TEST_SETUP);
    await assert.rejects(
      store.users.create(newUserRecord({ username: first.username }), TEST_SETUP),
      (error) => error instanceof NameTakenError && error.field === 'username',
    );
    await assert.rejects(store.users.update(second.user_id, { username: first.username }, TEST_SETUP), NameTakenError);
    assert.equal((await store.users.findById(second.user_id))?.username, second.username, 'unchanged');
  });

  it('changes only the fields given, and answers undefined for no such user', async () => {
    const user = await store.users.create(newUserRecord({ first_name: 'Before', organization: 'Kept' }), TEST_SETUP);
    const updated = await store.users.update(user.user_id, { first_name: 'After', disabled: true }, TEST_SETUP);
    assert.deepEqual(updated, { ...user, first_name: 'After', disabled: true });
    assert.deepEqual(await store.users.findById(user.user_id), updated);
    assert.deepEqual(await store.users.update(user.user_id, {}, TEST_SETUP), updated, 'no change is no change');
    assert.equal(await store.users.update('0'.repeat(32), { first_name: 'Nobody' }, TEST_SETUP), undefined);
  });

  it('deletes a user once', async () => {
    const user = await store.users.create(newUserRecord(), TEST_SETUP);
    assert.equal(await store.users.delete(user.user_id, TEST_SETUP), true);
    assert.equal(await store.users.findById(user.user_id), undefined);
    assert.equal(await store.users.delete(user.user_id, TEST_SETUP), false);
  });

  it('lists in order by any sort field, by offset or after a position, with the total and whether more follow', async () => {
    const isolated = await openTestStore();
    try {
      const users: User[] = [];
      for (const name of ['Cleo', 'Abe', 'Bea', 'Abe', 'Dan'])
        users.push(await isolated.store.users.create(newUserRecord({ first_name: name }), TEST_SETUP));
      const expected = [...users]
        .sort((a, b) => a.first_name.localeCompare(b.first_name) || a.user_id.localeCompare(b.user_id))
        .map((user) => user.user_id);

      const first = await isolated.store.users.list({ pageSize: 2, sortBy: 'first_name', sortDirection: 'asc', start: { skip: 0 } });
      assert.deepEqual(
        { ids: first.users.map((user) => user.user_id), total: first.total, more: first.more },
        { ids: expected.slice(0, 2), total: 5, more: true },
      );
      const last = first.users.at(-1)!;
      const next = await isolated.store.users.list({
        pageSize: 3,
        sortBy: 'first_name',
        sortDirection: 'asc',
        start: { after: { value: last.first_name, userId: last.user_id } },
        countTotal: false,
      });
      assert.deepEqual(
        { ids: next.users.map((user) => user.user_id), total: next.total, more: next.more },
        { ids: expected.slice(2), total: -1, more: false },
      );
      const backwards = await isolated.store.users.list({ pageSize: 10, sortBy: 'first_name', sortDirection: 'desc', start: { skip: 1 } });
      assert.deepEqual(
        backwards.users.map((user) => user.user_id),
        [...expected].reverse().slice(1),
      );
    } finally {
      await isolated.close();
    }
  });
});
