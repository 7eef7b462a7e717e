/**
 * The rules of groups, memberships, attributes and keys, once, on each store:
 * what every door gets from the directory.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openTestStore, TEST_STORE, type TestStore } from '../store/testing/open-test-store.js';
import { aGroup, aKey, aUser, freshGroupName } from '../testing/factories.js';
import { assertRefuses } from '../testing/refusals.js';
import { TEST_SETUP } from '../testing/test-setup.js';
import { GROUP_NAME_MAX_LENGTH } from './group-name.js';
import { createDirectory, type Directory } from './index.js';

describe(`the directory's groups, attributes and keys (${TEST_STORE})`, () => {
  let opened: TestStore;
  let directory: Directory;
  let systemGroupId: string;
  before(async () => {
    opened = await openTestStore();
    directory = createDirectory(opened.store);
    systemGroupId = (await directory.groups.list()).find((group) => group.is_system)!.group_id;
  });
  after(() => opened.close());

  it('names a group by the group-name rule: trimmed, not blank, at most 255 characters, unique', async () => {
    const name = freshGroupName();
    const group = await aGroup(directory, { name: `  ${name}\t` });
    assert.equal(group.name, name);
    assert.match(group.group_id, /^[0-9a-f]{32}$/);
    await assertRefuses(aGroup(directory, { name: ' \n ' }), { kind: 'invalid_group_name' });
    await assertRefuses(aGroup(directory, { name: '😀'.repeat(GROUP_NAME_MAX_LENGTH + 1) }), { kind: 'invalid_group_name' });
    assert.equal((await aGroup(directory, { name: '😀'.repeat(GROUP_NAME_MAX_LENGTH) })).name.length, 2 * GROUP_NAME_MAX_LENGTH);
    await assertRefuses(aGroup(directory, { name }), { kind: 'name_taken', entity: 'group' });
    await assertRefuses(directory.groups.update(group.group_id, { name: ' ' }, TEST_SETUP), { kind: 'invalid_group_name' });
  });

  it('keeps names that could impersonate out: invisible and direction-changing characters refused, look-alikes taken', async () => {
    // Characters that change how a name reads, or hide: refused, each naming the code point.
    for (const name of [
      'All\u200bUsers',
      '\u202esresU llA',
      'All\u2066Users',
      'All\tUsers',
      'All\u2028Users',
      'Ops\ue000',
      'Ops\u{e0041}',
    ]) {
      await assertRefuses(aGroup(directory, { name }), { kind: 'invalid_group_name' });
    }
    // A no-break space is folded to a space, and the name is stored in NFC.
    const folded = await aGroup(directory, { name: `Caf\u0065\u0301\u00a0${freshGroupName()}` });
    assert.match(folded.name, /^Café /);
    // Names that read as an existing group's (case, width, spaces of another kind): taken, the system group's too.
    const name = freshGroupName('Finance');
    const existing = await aGroup(directory, { name });
    for (const lookAlike of [
      name.toUpperCase(),
      name.replace(' ', '\u00a0'),
      name.replace(' ', '\u3000'),
      name.replace('F', '\uff26'),
      'all users',
      'ALL\u00a0USERS',
    ]) {
      await assertRefuses(aGroup(directory, { name: lookAlike }), { kind: 'name_taken', entity: 'group' });
    }
    const other = await aGroup(directory);
    await assertRefuses(directory.groups.update(other.group_id, { name: name.toLowerCase() }, TEST_SETUP), {
      kind: 'name_taken',
      entity: 'group',
    });
    // A group may change the case of its own name.
    assert.equal(
      (await directory.groups.update(existing.group_id, { name: name.toUpperCase() }, TEST_SETUP)).record.name,
      name.toUpperCase(),
    );
  });

  it('keeps the system group whole: its name, itself, and every user unless the key may take them out', async () => {
    const user = await aUser(directory);
    await assertRefuses(directory.groups.update(systemGroupId, { name: freshGroupName() }, TEST_SETUP), { kind: 'system_group' });
    assert.equal((await directory.groups.update(systemGroupId, { description: 'everyone' }, TEST_SETUP)).record.description, 'everyone');
    await assertRefuses(directory.groups.delete(systemGroupId, TEST_SETUP), { kind: 'system_group' });
    await assertRefuses(directory.groups.removeMember(user.record.user_id, systemGroupId, TEST_SETUP), {
      kind: 'system_group',
      lacking: 'groups_modify_system',
    });
    const removal = { addMembers: [], removeMembers: [user.record.user_id] };
    await assertRefuses(directory.groups.amend(systemGroupId, removal, TEST_SETUP), {
      kind: 'system_group',
      lacking: 'groups_modify_system',
    });
    // One rule whichever way the removal comes (remove_user_group, a SCIM PATCH, a SCIM PUT): the author's key decides.
    const mayModifySystem = { ...TEST_SETUP, permissions: ['groups_modify', 'groups_modify_system'] as const };
    await directory.groups.amend(systemGroupId, removal, mayModifySystem);
    await directory.groups.addMember(user.record.user_id, systemGroupId, TEST_SETUP);
    await directory.groups.removeMember(user.record.user_id, systemGroupId, mayModifySystem);
    await directory.groups.addMember(user.record.user_id, systemGroupId, TEST_SETUP);
    await directory.groups.rewrite(
      systemGroupId,
      (current) => ({ members: (current.members ?? []).map((member) => member.user_id).filter((id) => id !== user.record.user_id) }),
      mayModifySystem,
    );
    assert.equal(
      (await directory.groups.find(systemGroupId)).members?.some((member) => member.user_id === user.record.user_id),
      false,
    );
    await assertRefuses(directory.groups.update(systemGroupId, { name: freshGroupName() }, mayModifySystem), { kind: 'system_group' });
  });

  it('adds and removes members by ids in any accepted form, saying what a change came to', async () => {
    const [user, group] = [await aUser(directory), await aGroup(directory)];
    const upper = user.record.user_id.toUpperCase();
    await directory.groups.addMember(upper, group.group_id.toUpperCase(), TEST_SETUP);
    await assertRefuses(directory.groups.addMember(user.record.user_id, group.group_id, TEST_SETUP), { kind: 'already_member' });
    await directory.groups.removeMember(upper, group.group_id, TEST_SETUP);
    await assertRefuses(directory.groups.removeMember(user.record.user_id, group.group_id, TEST_SETUP), { kind: 'not_member' });
    await assertRefuses(directory.groups.addMember('0'.repeat(32), group.group_id, TEST_SETUP), { kind: 'not_found', entity: 'user' });
    await assertRefuses(directory.groups.addMember(user.record.user_id, '0'.repeat(32), TEST_SETUP), {
      kind: 'not_found',
      entity: 'group',
    });
  });

  it('creates and rewrites a group with its members at once, refusing ids that are no users', async () => {
    const [ada, bob] = [await aUser(directory), await aUser(directory)];
    const created = await aGroup(directory, { members: [ada.record.user_id, ada.record.user_id.toUpperCase()] });
    const initial = await directory.groups.find(created.group_id);
    assert.deepEqual(
      initial.members?.map((member) => member.user_id),
      [ada.record.user_id],
    );
    await assertRefuses(aGroup(directory, { members: ['0'.repeat(32)] }), { kind: 'unknown_members', userIds: ['0'.repeat(32)] });
    const rewritten = await directory.groups.rewrite(created.group_id, () => ({ members: [bob.record.user_id] }), TEST_SETUP);
    assert.deepEqual(
      rewritten.members?.map((member) => member.user_id),
      [bob.record.user_id],
    );
    const same = await directory.groups.rewrite(created.group_id, () => ({ members: [bob.record.user_id] }), TEST_SETUP);
    assert.equal(same.version, rewritten.version, 'a rewrite to what is there writes nothing');
    await assertRefuses(
      directory.groups.rewrite(created.group_id, () => ({ name: 'x' }), TEST_SETUP, [initial.version]),
      {
        kind: 'stale_version',
        entity: 'group',
        current: rewritten.version,
      },
    );
  });

  it('deletes a group once, and only at an expected version', async () => {
    const group = await aGroup(directory);
    const stored = await directory.groups.find(group.group_id);
    await assertRefuses(directory.groups.delete(group.group_id, TEST_SETUP, [stored.version + 1]), { kind: 'stale_version' });
    await directory.groups.delete(group.group_id, TEST_SETUP, [stored.version]);
    await assertRefuses(directory.groups.delete(group.group_id, TEST_SETUP), { kind: 'not_found', entity: 'group' });
  });

  it("checks a user's attributes, naming every one refused, and tells a private SSH key apart", async () => {
    const user = await aUser(directory);
    const refused = { kind: 'invalid_attributes', privateKey: false } as const;
    await assertRefuses(
      directory.attributes.update(
        user.record.user_id,
        { preferred_language: 'not a language', preferred_timezone: 'Mars/Olympus' },
        TEST_SETUP,
      ),
      {
        ...refused,
        refused: [
          { field: 'preferred_language', reason: (await reasonOf('preferred_language', 'not a language'))! },
          { field: 'preferred_timezone', reason: (await reasonOf('preferred_timezone', 'Mars/Olympus'))! },
        ],
      },
    );
    await assertRefuses(
      directory.attributes.update(user.record.user_id, { ssh_public_key: '-----BEGIN OPENSSH PRIVATE KEY-----' }, TEST_SETUP),
      { kind: 'invalid_attributes', privateKey: true },
    );
    const set = await directory.attributes.update(user.record.user_id, { preferred_language: 'en-gb', default_image: '' }, TEST_SETUP);
    assert.deepEqual([set.preferred_language, set.default_image], ['en-GB', null]);
    await assertRefuses(directory.attributes.find('0'.repeat(32)), { kind: 'not_found', entity: 'user' });

    async function reasonOf(field: 'preferred_language' | 'preferred_timezone', value: string) {
      try {
        await directory.attributes.update(user.record.user_id, { [field]: value }, TEST_SETUP);
      } catch (error) {
        return (error as { refusal: { refused: { reason: string }[] } }).refusal.refused[0]?.reason;
      }
      return undefined;
    }
  });

  it('issues a key with the permissions asked for and no more, and changes or revokes only an active one', async () => {
    const { record, secret } = await aKey(directory, { permissions: ['users_view'] });
    assert.deepEqual(record.permissions, ['users_view']);
    assert.ok(!JSON.stringify(await directory.keys.list()).includes(secret), 'the secret is never kept');
    assert.deepEqual((await directory.keys.update(record.api_key, { permissions: [] }, TEST_SETUP)).permissions, []);
    await directory.keys.revoke(record.api_key, TEST_SETUP, 'operator');
    await assertRefuses(directory.keys.revoke(record.api_key, TEST_SETUP, 'operator'), { kind: 'not_found', entity: 'api_key' });
    await assertRefuses(directory.keys.update(record.api_key, { expires: null }, TEST_SETUP), { kind: 'not_found', entity: 'api_key' });
  });
});
