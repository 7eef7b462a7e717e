import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { NameTakenError, StaleVersionError, type User } from './records.js';
import { TEST_SETUP } from '../testing/test-setup.js';
import type { Store } from './repositories.js';
import { newUserRecord, openTestStore, TEST_STORE, type TestStore } from './testing/open-test-store.js';

const randomHex = () => randomBytes(16).toString('hex');

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
    const user = (await store.users.create(record, TEST_SETUP)).record;
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
    assert.deepEqual((await store.users.findById(user.user_id))?.record, user);
    assert.deepEqual((await store.users.findByUsername(record.username))?.record, user);
  });

  it('records when a password was set, and keeps its hash out of the user', async () => {
    const created = new Date().toISOString();
    const user = (await store.users.create(newUserRecord({ password_hash: '$argon2id$stand-in', created }), TEST_SETUP)).record;
    assert.equal(user.password_set_date, created);
    assert.ok(!('password_hash' in user));
    assert.equal(await opened.inspection.passwordHash(user.user_id), '$argon2id$stand-in');
    assert.equal(await opened.inspection.passwordHash('0'.repeat(32)), undefined, 'no such user');
  });

  it('refuses a taken username with NameTakenError, on create and on update', async () => {
    const first = (await store.users.create(newUserRecord(), TEST_SETUP)).record;
    const second = (await store.users.create(newUserRecord(), TEST_SETUP)).record;
    await assert.rejects(
      store.users.create(newUserRecord({ username: first.username }), TEST_SETUP),
      (error) => error instanceof NameTakenError && error.field === 'username',
    );
    await assert.rejects(store.users.update(second.user_id, { username: first.username }, TEST_SETUP), NameTakenError);
    assert.equal((await store.users.findById(second.user_id))?.record.username, second.username, 'unchanged');
  });

  it('changes only the fields given, and answers undefined for no such user', async () => {
    const user = (await store.users.create(newUserRecord({ first_name: 'Before', organization: 'Kept' }), TEST_SETUP)).record;
    const updated = await store.users.update(user.user_id, { first_name: 'After', disabled: true }, TEST_SETUP);
    assert.deepEqual(updated?.record, { ...user, first_name: 'After', disabled: true });
    assert.deepEqual(await store.users.findById(user.user_id), updated);
    assert.deepEqual(await store.users.update(user.user_id, {}, TEST_SETUP), updated, 'no change is no change, and no new version');
    assert.equal(await store.users.update('0'.repeat(32), { first_name: 'Nobody' }, TEST_SETUP), undefined);
  });

  it('deletes a user once', async () => {
    const user = (await store.users.create(newUserRecord(), TEST_SETUP)).record;
    assert.equal(await store.users.delete(user.user_id, TEST_SETUP), true);
    assert.equal(await store.users.findById(user.user_id), undefined);
    assert.equal(await store.users.delete(user.user_id, TEST_SETUP), false);
  });

  describe('versions', () => {
    const versionOf = async (userId: string) => (await store.users.findById(userId))?.version;
    const groupVersion = async (groupId: string) =>
      Number(
        (await opened.inspection.execute<{ version: number }>(sql`select version from groups where group_id = ${groupId}`))[0]?.version,
      );

    it('moves with every change to the user: an update, a logout, a group joined, renamed, deleted or left', async () => {
      const created = await store.users.create(newUserRecord(), TEST_SETUP);
      const userId = created.record.user_id;
      const seen = [created.version];
      const moved = async (what: string) => {
        const now = await versionOf(userId);
        assert.ok(now !== undefined && now > (seen.at(-1) ?? 0), `${what} moves the version (was ${seen.at(-1)}, is ${now})`);
        seen.push(now);
      };
      await store.users.update(userId, { first_name: 'New' }, TEST_SETUP);
      await moved('an update');
      await store.users.logout(userId, new Date().toISOString(), TEST_SETUP);
      await moved('a logout');
      const group = await store.groups.create({ group_id: randomHex(), name: `versions-${randomHex()}` }, TEST_SETUP);
      await store.groups.addMember(userId, group.group_id, TEST_SETUP);
      await moved('joining a group');
      await store.groups.amend(group.group_id, { description: 'not shown on the user', addMembers: [], removeMembers: [] }, TEST_SETUP);
      assert.equal(await versionOf(userId), seen.at(-1), "a group's description is not part of its members");
      await store.groups.amend(group.group_id, { name: `renamed-${randomHex()}`, addMembers: [], removeMembers: [] }, TEST_SETUP);
      await moved("renaming the user's group");
      await store.groups.removeMember(userId, group.group_id, TEST_SETUP);
      await moved('leaving a group');
      await store.groups.addMember(userId, group.group_id, TEST_SETUP);
      await moved('joining it again');
      await store.groups.delete(group.group_id, TEST_SETUP);
      await moved("deleting the user's group");
    });

    it("moves a group's version with its members: a user created, added, removed or deleted", async () => {
      const group = await store.groups.create({ group_id: randomHex(), name: `members-${randomHex()}` }, TEST_SETUP);
      const system = (await store.groups.list()).find((entry) => entry.is_system)!;
      const before = { group: await groupVersion(group.group_id), system: await groupVersion(system.group_id) };
      const { record: user } = await store.users.create(newUserRecord(), TEST_SETUP);
      assert.ok((await groupVersion(system.group_id)) > before.system, 'the system group lists every new user');
      await store.groups.addMember(user.user_id, group.group_id, TEST_SETUP);
      const added = await groupVersion(group.group_id);
      assert.ok(added > before.group, 'a member added');
      await store.users.update(user.user_id, { last_name: 'Only the user' }, TEST_SETUP);
      assert.equal(await groupVersion(group.group_id), added, "a member's own fields are not the group's");
      await store.users.delete(user.user_id, TEST_SETUP);
      assert.ok((await groupVersion(group.group_id)) > added, 'a member deleted');
    });

    it('writes only at an expected version: a stale one is refused with the current version, and nothing changes', async () => {
      const created = await store.users.create(newUserRecord({ first_name: 'Kept' }), TEST_SETUP);
      const userId = created.record.user_id;
      const updated = await store.users.update(userId, { first_name: 'First' }, TEST_SETUP, [created.version]);
      assert.equal(updated?.record.first_name, 'First');
      const stale = (error: unknown) => error instanceof StaleVersionError && error.current === updated?.version;
      await assert.rejects(store.users.update(userId, { first_name: 'Second' }, TEST_SETUP, [created.version]), stale);
      await assert.rejects(store.users.update(userId, {}, TEST_SETUP, [created.version]), stale, 'even a change of nothing');
      await assert.rejects(store.users.update(userId, { first_name: 'Second' }, TEST_SETUP, []), stale, 'no version of ours named');
      await assert.rejects(store.users.delete(userId, TEST_SETUP, [created.version]), stale);
      assert.deepEqual(await store.users.findById(userId), updated, 'neither the update nor the delete happened');
      assert.equal(await store.users.update('0'.repeat(32), { first_name: 'x' }, TEST_SETUP, [1]), undefined, 'no such user');
      assert.equal(await store.users.delete('0'.repeat(32), TEST_SETUP, [1]), false, 'no such user');
      assert.equal(await store.users.delete(userId, TEST_SETUP, [created.version, updated.version]), true, 'any of several');
    });

    it('lets exactly one of two writers that read the same version write', async () => {
      const created = await store.users.create(newUserRecord(), TEST_SETUP);
      const userId = created.record.user_id;
      const outcomes = await Promise.allSettled(
        ['One', 'Two', 'Three'].map((first_name) => store.users.update(userId, { first_name }, TEST_SETUP, [created.version])),
      );
      const written = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      assert.equal(written.length, 1, 'one writer wins');
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') assert.ok(outcome.reason instanceof StaleVersionError, String(outcome.reason));
      }
      assert.equal((await store.users.findById(userId))?.record.first_name, written[0]?.value?.record.first_name);
    });
  });

  it('lists in order by any sort field, by offset or after a position, with the total and whether more follow', async () => {
    const isolated = await openTestStore();
    try {
      const users: User[] = [];
      for (const name of ['Cleo', 'Abe', 'Bea', 'Abe', 'Dan'])
        users.push((await isolated.store.users.create(newUserRecord({ first_name: name }), TEST_SETUP)).record);
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
