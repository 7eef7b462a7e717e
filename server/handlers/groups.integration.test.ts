import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../testing/service.js';

describe('groups and membership', () => {
  let service: TestService;
  let engineering: { group_id: string; name: string };
  let allUsers: { group_id: string };
  before(async () => {
    service = await startTestService();
    engineering = await service.createGroup({ name: 'Engineering' });
    allUsers = (await service.store.groups.list()).find((group) => group.name === 'All Users')!;
  });
  after(() => service.close());

  const membership = (operation: 'add_user_group' | 'remove_user_group', user_id: string, group_id: string) =>
    service.callAsAdmin(operation, { target_user: { user_id }, target_group: { group_id } });
  const groupNames = async (user_id: string) => (await service.store.users.findById(user_id))!.record.groups.map((group) => group.name);

  it('lists every group by name, marking the system group', async () => {
    const answer = await service.callAsAdmin('get_groups');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body.groups, [
      { group_id: allUsers.group_id, name: 'All Users', description: '', priority: 4096, is_system: true },
      { group_id: engineering.group_id, name: 'Engineering', description: '', priority: 4096, is_system: false },
    ]);
  });

  it('adds a user to a group and removes them again', async () => {
    const user = await service.createUser();
    const added = await membership('add_user_group', user.user_id, engineering.group_id);
    assert.equal(added.status, 200);
    assert.deepEqual(added.body, {});
    assert.deepEqual(await groupNames(user.user_id), ['All Users', 'Engineering']);

    const removed = await membership('remove_user_group', user.user_id, engineering.group_id);
    assert.equal(removed.status, 200);
    assert.deepEqual(await groupNames(user.user_id), ['All Users']);
  });

  it('answers 409 for a membership that already is, or is not', async () => {
    const user = await service.createUser();
    await membership('add_user_group', user.user_id, engineering.group_id);
    const twice = await membership('add_user_group', user.user_id, engineering.group_id);
    assert.equal(twice.status, 409);
    assert.equal(twice.body.code, 'already_member');

    await membership('remove_user_group', user.user_id, engineering.group_id);
    const notMember = await membership('remove_user_group', user.user_id, engineering.group_id);
    assert.equal(notMember.status, 409);
    assert.equal(notMember.body.code, 'not_member');
  });

  it('keeps every user in "All Users", but for a key with groups_modify_system, as in Kasm', async () => {
    const user = await service.createUser();
    const target = { target_user: { user_id: user.user_id }, target_group: { group_id: allUsers.group_id } };
    const groupsModify = await service.createKey({ permissions: ['groups_modify'] });
    const refused = await service.call('remove_user_group', { ...groupsModify, ...target });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.code, 'system_group');
    assert.match(refused.body.error_message, /groups_modify_system/);
    assert.deepEqual(await groupNames(user.user_id), ['All Users']);
    const systemOnly = await service.createKey({ permissions: ['groups_modify_system'] });
    assert.equal((await service.call('remove_user_group', { ...systemOnly, ...target })).status, 403, 'the operation needs groups_modify');

    const sync = await service.createKey({ permissions: ['groups_modify', 'groups_modify_system'] });
    const removed = await service.call('remove_user_group', { ...sync, ...target });
    assert.equal(removed.status, 200, removed.text);
    assert.deepEqual(await groupNames(user.user_id), []);
    const events = await service.callAsAdmin('get_audit_events', { target_user_id: user.user_id });
    assert.equal(events.body.events[0].operation, 'removeUserGroup');
    assert.equal(events.body.events[0].actor, sync.api_key);
    assert.equal((await service.call('add_user_group', { ...sync, ...target })).status, 200, 'and back in');
  });

  it('answers 404 for an unknown user or group', async () => {
    const user = await service.createUser();
    const noGroup = await membership('add_user_group', user.user_id, '0'.repeat(32));
    assert.equal(noGroup.status, 404);
    assert.equal(noGroup.body.code, 'group_not_found');
    const noUser = await membership('add_user_group', '0'.repeat(32), engineering.group_id);
    assert.equal(noUser.status, 404);
    assert.equal(noUser.body.code, 'user_not_found');
  });

  it('drops memberships when the user is deleted', async () => {
    const user = await service.createUser();
    await membership('add_user_group', user.user_id, engineering.group_id);
    await service.callAsAdmin('delete_user', { target_user: { user_id: user.user_id } });
    const rows = await service.inspection.rows('user_groups');
    assert.deepEqual(
      rows.filter((row) => row.user_id === user.user_id),
      [],
    );
  });
});
