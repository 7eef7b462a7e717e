import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parse } from 'scim2-parse-filter';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { MEMBERS_BUMPED_PER_STATEMENT, MEMBERSHIPS_PER_STATEMENT } from './group-repository.js';
import { NameTakenError, StaleVersionError, type StoredUser, UnknownMembersError } from './records.js';
import { TEST_SETUP } from '../testing/test-setup.js';
import type { Store } from './repositories.js';
import { newUserRecord, openTestStore, TEST_STORE, type TestStore } from './testing/open-test-store.js';

describe(`GroupRepository (${TEST_STORE})`, () => {
  let opened: TestStore;
  let store: Store;
  before(async () => {
    opened = await openTestStore();
    store = opened.store;
  });
  after(() => opened.close());

  const groupNames = async (userId: string) => (await store.users.findById(userId))!.record.groups.map((group) => group.name);
  let counter = 0;
  const newGroupId = () => (++counter).toString(16).padStart(32, 'a');

  it('starts with the system group alone, and lists groups by name', async () => {
    const isolated = await openTestStore();
    try {
      assert.deepEqual(await isolated.store.groups.list(), [
        {
          group_id: (await isolated.store.groups.list())[0]!.group_id,
          name: 'All Users',
          description: '',
          priority: 4096,
          is_system: true,
        },
      ]);
      await isolated.store.groups.create({ group_id: 'b'.repeat(32), name: 'Zebra' }, TEST_SETUP);
      await isolated.store.groups.create({ group_id: 'c'.repeat(32), name: 'Alpha' }, TEST_SETUP);
      assert.deepEqual(
        (await isolated.store.groups.list()).map((group) => group.name),
        ['All Users', 'Alpha', 'Zebra'],
      );
    } finally {
      await isolated.close();
    }
  });

  it('answers a search by id (a lookup by key) as the general query answers it, page by page', async () => {
    const groupId = newGroupId();
    const member = await store.users.create(newUserRecord(), TEST_SETUP);
    await store.groups.create({ group_id: groupId, name: `Lookup ${groupId}`, members: [member.record.user_id] }, TEST_SETUP);
    for (const id of [groupId.toUpperCase(), 'f'.repeat(32)]) {
      for (const page of [
        { offset: 0, limit: 100, withMembers: true },
        { offset: 0, limit: 0, withMembers: true },
        { offset: 1, limit: 100, withMembers: false },
        { offset: 0, limit: 1, withMembers: false },
      ]) {
        const search = (filter: string) => store.groups.search({ filter: parse(filter), sortBy: 'name', sortDirection: 'asc', ...page });
        // With a term that every group matches, the same search is no lookup.
        assert.deepEqual(
          await search(`id eq "${id}"`),
          await search(`id eq "${id}" and meta.created pr`),
          `${id} at ${JSON.stringify(page)}`,
        );
      }
    }
    const [found] = (
      await store.groups.search({
        filter: parse(`id eq "${groupId}"`),
        withMembers: true,
        sortBy: 'name',
        sortDirection: 'asc',
        offset: 0,
        limit: 10,
      })
    ).groups;
    assert.deepEqual(
      found?.members?.map((entry) => entry.user_id),
      [member.record.user_id],
    );
  });

  it('refuses a taken group name with NameTakenError', async () => {
    await store.groups.create({ group_id: newGroupId(), name: 'Ops' }, TEST_SETUP);
    await assert.rejects(
      store.groups.create({ group_id: newGroupId(), name: 'Ops' }, TEST_SETUP),
      (error) => error instanceof NameTakenError && error.field === 'group_name',
    );
  });

  it('adds and removes members, saying what each change came to', async () => {
    const user = (await store.users.create(newUserRecord(), TEST_SETUP)).record;
    const group = await store.groups.create({ group_id: newGroupId(), name: 'Engineering' }, TEST_SETUP);
    assert.equal(await store.groups.addMember(user.user_id, group.group_id, TEST_SETUP), 'done');
    assert.equal(await store.groups.addMember(user.user_id, group.group_id, TEST_SETUP), 'already_member');
    assert.deepEqual(await groupNames(user.user_id), ['All Users', 'Engineering']);
    assert.equal(await store.groups.removeMember(user.user_id, group.group_id, TEST_SETUP), 'done');
    assert.equal(await store.groups.removeMember(user.user_id, group.group_id, TEST_SETUP), 'not_member');
    assert.equal(await store.groups.addMember('0'.repeat(32), group.group_id, TEST_SETUP), 'no_user');
    assert.equal(await store.groups.addMember(user.user_id, '0'.repeat(32), TEST_SETUP), 'no_group');
    assert.equal(await store.groups.removeMember(user.user_id, '0'.repeat(32), TEST_SETUP), 'no_group');
  });

  it('amends a group by the members it names, reading no others, with an audit event and a new version per user changed', async () => {
    const [ada, bob, eve] = await Promise.all([1, 2, 3].map(async () => (await store.users.create(newUserRecord(), TEST_SETUP)).record));
    const groupId = newGroupId();
    await store.groups.create({ group_id: groupId, name: `Amended ${groupId}`, members: [ada!.user_id, eve!.user_id] }, TEST_SETUP);
    const before = (await store.groups.find(groupId))!;
    const versionOf = async (userId: string) => (await store.users.findById(userId))!.version;
    const [adaVersion, eveVersion] = [await versionOf(ada!.user_id), await versionOf(eve!.user_id)];
    const earlier = new Set((await store.audit.list({ pageSize: 100 })).events.map((event) => event.event_id));

    const amended = await store.groups.amend(
      groupId,
      { addMembers: [bob!.user_id, eve!.user_id], removeMembers: [ada!.user_id] },
      TEST_SETUP,
      {
        expected: [before.version],
      },
    );
    assert.ok(typeof amended === 'object');
    assert.equal(amended.members, undefined, 'answered without its members unless asked');
    assert.equal(amended.version, before.version + 1);
    const members = (await store.groups.find(groupId))!.members!.map((member) => member.user_id).sort();
    assert.deepEqual(members, [bob!.user_id, eve!.user_id].sort());
    assert.notEqual(await versionOf(ada!.user_id), adaVersion, 'ada left: her groups changed');
    assert.equal(await versionOf(eve!.user_id), eveVersion, 'eve was already in: nothing of hers changed');
    const trail = await store.audit.list({ pageSize: 100 });
    const ofGroup = trail.events
      .filter((event) => !earlier.has(event.event_id))
      .map((event) => `${event.operation} ${event.target_user_id}`);
    assert.deepEqual(ofGroup.sort(), [`addUserGroup ${bob!.user_id}`, `removeUserGroup ${ada!.user_id}`].sort());

    const unchanged = await store.groups.amend(groupId, { addMembers: [bob!.user_id], removeMembers: [ada!.user_id] }, TEST_SETUP, {
      withMembers: true,
    });
    assert.ok(typeof unchanged === 'object');
    assert.equal(unchanged.version, amended.version, 'a member already in and one already out: nothing written');
    assert.equal(unchanged.members?.length, 2);
    await assert.rejects(
      store.groups.amend(groupId, { addMembers: [ada!.user_id], removeMembers: [] }, TEST_SETUP, { expected: [before.version] }),
      (error) => error instanceof StaleVersionError && error.current === amended.version,
    );
    await assert.rejects(
      store.groups.amend(groupId, { name: `Renamed ${groupId}`, addMembers: ['f'.repeat(32)], removeMembers: [bob!.user_id] }, TEST_SETUP),
      (error) => error instanceof UnknownMembersError,
    );
    const after = (await store.groups.find(groupId))!;
    assert.equal(after.version, amended.version, 'a refused amendment is undone whole');
    assert.equal(after.record.name, `Amended ${groupId}`);
    assert.equal(await store.groups.amend('0'.repeat(32), { addMembers: [], removeMembers: [] }, TEST_SETUP), 'no_group');
  });

  it('places the events of a change of many members in the order of its members, one after another, past a statement’s share', async () => {
    // More than one insert's share of events (EVENTS_PER_INSERT), and than two of memberships (MEMBERSHIPS_PER_STATEMENT).
    const many = 600;
    assert.ok(many > 2 * MEMBERSHIPS_PER_STATEMENT && many % MEMBERSHIPS_PER_STATEMENT !== 0);
    // Ten at a time, as many as the pool holds: 600 at once waited on PostgreSQL's pool past the
    // connect timeout (DATABASE_CONNECT_TIMEOUT_MS) on a busy machine, each behind the sequencer.
    const users: StoredUser['record'][] = [];
    for (let start = 0; start < many; start += 10) {
      users.push(
        ...(await Promise.all(Array.from({ length: 10 }, async () => (await store.users.create(newUserRecord(), TEST_SETUP)).record))),
      );
    }
    const groupId = newGroupId();
    await store.groups.create({ group_id: groupId, name: `Many ${groupId}` }, TEST_SETUP);
    const { head } = await store.audit.feed({ since: new Date(0).toISOString(), limit: 1 });
    const added = users.map((user) => user.user_id);
    assert.ok(typeof (await store.groups.amend(groupId, { addMembers: added, removeMembers: [] }, TEST_SETUP)) === 'object');
    const feed = await store.audit.feed({ after: head, since: new Date(0).toISOString(), limit: many + 10 });
    const placed = feed.events.filter(({ event }) => event.type === 'group.member_added');
    assert.deepEqual(
      placed.map(({ event }) => event.data.member?.user_id),
      added,
      'one event per member, in the order named',
    );
    assert.deepEqual(
      placed.map(({ position }) => position - placed[0]!.position),
      added.map((_, index) => index),
      'at places one after another',
    );
    const members = async () => (await store.groups.find(groupId, { withMembers: true }))!.members!.map((member) => member.user_id).sort();
    assert.deepEqual(await members(), [...added].sort(), 'every member, the last statement’s included');
    const kept = added.slice(0, 1);
    assert.ok(typeof (await store.groups.amend(groupId, { addMembers: [], removeMembers: added.slice(1) }, TEST_SETUP)) === 'object');
    assert.deepEqual(await members(), kept, 'every member taken out but the one not named');
  });

  it('amends names, moving the version of every member, whose groups are named in them', async () => {
    const member = (await store.users.create(newUserRecord(), TEST_SETUP)).record;
    const groupId = newGroupId();
    await store.groups.create({ group_id: groupId, name: `Before ${groupId}`, members: [member.user_id] }, TEST_SETUP);
    const memberVersion = (await store.users.findById(member.user_id))!.version;
    const renamed = await store.groups.amend(
      groupId,
      { name: `After ${groupId}`, external_id: 'ext-1', addMembers: [], removeMembers: [] },
      TEST_SETUP,
    );
    assert.ok(typeof renamed === 'object');
    assert.deepEqual([renamed.record.name, renamed.external_id], [`After ${groupId}`, 'ext-1']);
    assert.deepEqual(await groupNames(member.user_id), ['After ' + groupId, 'All Users'].sort());
    assert.notEqual((await store.users.findById(member.user_id))!.version, memberVersion);
  });

  it('moves the version of every member of a group too large for one statement, when it is renamed and when it is deleted', async () => {
    const count = MEMBERS_BUMPED_PER_STATEMENT + 1;
    const groupId = newGroupId();
    await store.groups.create({ group_id: groupId, name: `Large ${groupId}` }, TEST_SETUP);
    const bool = TEST_STORE === 'sqlite' ? sql`0` : sql`false`;
    const now = new Date().toISOString();
    const ids = Array.from({ length: count }, () => randomBytes(16).toString('hex'));
    for (let start = 0; start < count; start += 500) {
      const slice = ids.slice(start, start + 500);
      await opened.inspection.execute(
        sql`insert into users (user_id, username, first_name, last_name, phone, organization, locked, disabled, created) values ${sql.join(
          slice.map((id) => sql`(${id}, ${`large-${id}@example.com`}, '', '', '', '', ${bool}, ${bool}, ${now})`),
        )}`,
      );
      await opened.inspection.execute(
        sql`insert into user_groups (user_id, group_id) values ${sql.join(slice.map((id) => sql`(${id}, ${groupId})`))}`,
      );
    }
    const versions = async () =>
      new Set(
        (await opened.inspection.rows('users')).filter((row) => ids.includes(row.user_id as string)).map((row) => Number(row.version)),
      );
    assert.deepEqual(await versions(), new Set([1]));
    await store.groups.amend(groupId, { name: `Larger ${groupId}`, addMembers: [], removeMembers: [] }, TEST_SETUP);
    assert.deepEqual(await versions(), new Set([2]), "every member, the last batch's one included");
    assert.equal(await store.groups.delete(groupId, TEST_SETUP), 'deleted');
    assert.deepEqual(await versions(), new Set([3]));
  });

  it('keeps the system group whole through an amendment: no rename, nobody taken out unless the caller allows it', async () => {
    const user = (await store.users.create(newUserRecord(), TEST_SETUP)).record;
    const system = (await store.groups.list()).find((group) => group.is_system)!;
    const amend = (amendment: Parameters<Store['groups']['amend']>[1]) => store.groups.amend(system.group_id, amendment, TEST_SETUP);
    assert.equal(await amend({ addMembers: [], removeMembers: [user.user_id] }), 'system_group_members');
    assert.equal(await amend({ name: 'Everyone', addMembers: [], removeMembers: [] }), 'system_group');
    const unchanged = await amend({ addMembers: [user.user_id], removeMembers: ['f'.repeat(32)] });
    assert.ok(typeof unchanged === 'object', 'adding a member it holds, removing one it never held: nothing to refuse');
    assert.deepEqual(await groupNames(user.user_id), ['All Users']);
    const allowed = await store.groups.amend(system.group_id, { addMembers: [], removeMembers: [user.user_id] }, TEST_SETUP, {
      fromSystemGroup: true,
    });
    assert.ok(typeof allowed === 'object');
    assert.deepEqual(await groupNames(user.user_id), []);
  });

  it('keeps everyone in the system group, which cannot be deleted, and left only when the caller allows it', async () => {
    const user = (await store.users.create(newUserRecord(), TEST_SETUP)).record;
    const system = (await store.groups.list()).find((group) => group.is_system)!;
    assert.equal(await store.groups.removeMember(user.user_id, system.group_id, TEST_SETUP), 'system_group');
    assert.equal(await store.groups.delete(system.group_id, TEST_SETUP), 'system_group');
    assert.deepEqual(await groupNames(user.user_id), ['All Users']);
    assert.equal(await store.groups.removeMember(user.user_id, system.group_id, TEST_SETUP, { fromSystemGroup: true }), 'done');
    assert.deepEqual(await groupNames(user.user_id), []);
  });

  it('deletes a group with its memberships', async () => {
    const user = (await store.users.create(newUserRecord(), TEST_SETUP)).record;
    const group = await store.groups.create({ group_id: newGroupId(), name: 'Temporary' }, TEST_SETUP);
    await store.groups.addMember(user.user_id, group.group_id, TEST_SETUP);
    assert.equal(await store.groups.delete(group.group_id, TEST_SETUP), 'deleted');
    assert.equal(await store.groups.delete(group.group_id, TEST_SETUP), 'no_group');
    assert.deepEqual(await groupNames(user.user_id), ['All Users']);
  });
});
