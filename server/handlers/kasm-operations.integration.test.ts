/**
 * The user operations Kasm's clients call beyond the lifecycle: a user's
 * attributes, logout_user, and the group lifecycle, each with its audit event
 * and its permission, on both stores.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import sshpk from 'sshpk';
import { startTestService, type TestService } from '../testing/service.js';

const ED25519 = sshpk.parseKey(generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }), 'pem').toString('ssh');
const PRIVATE = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

describe('Kasm user operations', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  const auditOf = async (operation: string) =>
    (await service.callAsAdmin('get_audit_events', { page_size: 500 })).body.events.filter(
      (event: { operation: string }) => event.operation === operation,
    );

  describe('attributes', () => {
    it('answers the defaults for a user who never set any, with a stable id', async () => {
      const user = await service.createUser();
      const first = await service.callAsAdmin('get_attributes', { target_user: { user_id: user.user_id } });
      assert.equal(first.status, 200);
      const { user_attributes_id, ...rest } = first.body.user_attributes;
      assert.match(user_attributes_id, /^[0-9a-f]{32}$/);
      assert.deepEqual(rest, {
        user_id: user.user_id,
        default_image: null,
        show_tips: false,
        auto_login_kasm: null,
        toggle_control_panel: false,
        theme: 'Light',
        chat_sfx: true,
        ssh_public_key: '',
        preferred_language: '',
        preferred_timezone: '',
      });
      const again = await service.callAsAdmin('get_attributes', { target_user: { user_id: user.user_id.toUpperCase() } });
      assert.equal(again.body.user_attributes.user_attributes_id, user_attributes_id);
    });

    it('stores what pykasm sends, in canonical forms, and keeps what a later change leaves out', async () => {
      const user = await service.createUser();
      const image = '0123456789abcdef0123456789abcdef';
      const sent = {
        user_id: user.user_id,
        ssh_public_key: `${ED25519} ada@example.com`,
        show_tips: true,
        theme: 'Dark',
        preferred_language: 'en-gb',
        preferred_timezone: 'europe/london',
        toggle_control_panel: true,
        default_image: '01234567-89AB-CDEF-0123-456789ABCDEF',
        auto_login_kasm: false,
      } as const;
      const changed = await service.callAsAdmin('update_user_attributes', { target_user_attributes: sent });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      const expected = {
        ...changed.body.user_attributes,
        ssh_public_key: `${ED25519} ada@example.com`,
        show_tips: true,
        theme: 'Dark',
        preferred_language: 'en-GB',
        preferred_timezone: 'Europe/London',
        toggle_control_panel: true,
        default_image: image,
        auto_login_kasm: false,
        chat_sfx: true,
      };
      assert.deepEqual(changed.body.user_attributes, expected);
      const partly = await service.callAsAdmin('update_user_attributes', {
        target_user_attributes: { user_id: user.user_id, chat_sfx: false, theme: null, default_image: '' },
      });
      assert.deepEqual(partly.body.user_attributes, { ...expected, chat_sfx: false, default_image: null });
      const read = await service.callAsAdmin('get_attributes', { target_user: { user_id: user.user_id } });
      assert.deepEqual(read.body.user_attributes, partly.body.user_attributes);
      const [event] = (await auditOf('updateUserAttributes')).filter((e: { target_user_id: string }) => e.target_user_id === user.user_id);
      assert.deepEqual(event.changed_fields, ['chat_sfx', 'default_image'], 'the newest event names the fields, never their values');
    });

    it('refuses, naming it, an attribute that is not what it must be, and stores nothing of the request', async () => {
      const user = await service.createUser();
      const attempts: [Record<string, unknown>, string, string][] = [
        [{ ssh_public_key: 'ssh-ed25519 AAAAnotbase64!!' }, 'ssh_public_key', 'invalid_attribute'],
        [{ ssh_public_key: 'ssh-dss AAAAB3NzaC1kc3M=' }, 'ssh_public_key', 'invalid_attribute'],
        [{ preferred_language: 'not a language' }, 'preferred_language', 'invalid_attribute'],
        [{ preferred_language: 'english' }, 'preferred_language', 'invalid_attribute'],
        [{ preferred_timezone: 'Mars/Olympus_Mons' }, 'preferred_timezone', 'invalid_attribute'],
      ];
      for (const [fields, field, code] of attempts) {
        const answer = await service.callAsAdmin('update_user_attributes', {
          target_user_attributes: { user_id: user.user_id, theme: 'Dark', ...fields },
        });
        assert.equal(answer.status, 400, JSON.stringify(fields));
        assert.equal(answer.body.code, code);
        assert.deepEqual(
          answer.body.errors.map((error: { path: string }) => error.path),
          [`/body/target_user_attributes/${field}`],
        );
      }
      const theme = await service.sendAsAdmin('update_user_attributes', {
        target_user_attributes: { user_id: user.user_id, theme: 'Purple' },
      });
      assert.equal(theme.status, 400);
      assert.equal(
        (await service.callAsAdmin('get_attributes', { target_user: { user_id: user.user_id } })).body.user_attributes.theme,
        'Light',
      );
    });

    it('refuses a private SSH key with a clear 400, and it is stored, answered and logged nowhere', async () => {
      const user = await service.createUser();
      const answer = await service.callAsAdmin('update_user_attributes', {
        target_user_attributes: { user_id: user.user_id, ssh_public_key: PRIVATE },
      });
      assert.equal(answer.status, 400);
      assert.equal(answer.body.code, 'ssh_private_key');
      assert.match(answer.body.error_message, /private key: send its public half/);
      const secretLine = PRIVATE.split('\n')[1]!;
      assert.equal(JSON.stringify(answer.body).includes(secretLine), false);
      assert.equal(service.logs().includes(secretLine), false);
      const rows = await service.inspection.rows('user_attributes');
      assert.equal(JSON.stringify(rows).includes(secretLine), false);
    });

    it('answers 404 for no such user, and asks users_view to read and users_modify to change', async () => {
      const nobody = { user_id: 'f'.repeat(32) };
      assert.equal((await service.callAsAdmin('get_attributes', { target_user: nobody })).status, 404);
      assert.equal(
        (await service.callAsAdmin('update_user_attributes', { target_user_attributes: { ...nobody, theme: 'Dark' } })).status,
        404,
      );
      const user = await service.createUser();
      const reader = await service.createKey({ permissions: ['users_view'] });
      assert.equal((await service.call('get_attributes', { ...reader, target_user: { user_id: user.user_id } })).status, 200);
      const change = await service.call('update_user_attributes', {
        ...reader,
        target_user_attributes: { user_id: user.user_id, theme: 'Dark' },
      });
      assert.equal(change.status, 403);
    });
  });

  describe('logout_user', () => {
    it('moves the instant sessions are valid from forward, shows it on the user, and audits it', async () => {
      const user = await service.createUser();
      assert.equal(user.sessions_valid_from, null);
      const before = new Date().toISOString();
      const answer = await service.callAsAdmin('logout_user', { target_user: { user_id: user.user_id } });
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, {});
      const first = (await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } })).body.user.sessions_valid_from;
      assert.ok(first >= before, `${first} is not after ${before}`);
      await service.callAsAdmin('logout_user', { target_user: { user_id: user.user_id } });
      const second = (await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } })).body.user.sessions_valid_from;
      assert.ok(second > first, 'a second logout moves it forward again');
      const events = (await auditOf('logoutUser')).filter((event: { target_user_id: string }) => event.target_user_id === user.user_id);
      assert.equal(events.length, 2);
      assert.deepEqual(events[0].changed_fields, ['sessions_valid_from']);
    });

    it('answers 404 for no such user and 403 to a key without users_auth_session', async () => {
      assert.equal((await service.callAsAdmin('logout_user', { target_user: { user_id: 'f'.repeat(32) } })).status, 404);
      const user = await service.createUser();
      const modifier = await service.createKey({ permissions: ['users_modify'] });
      assert.equal((await service.call('logout_user', { ...modifier, target_user: { user_id: user.user_id } })).status, 403);
    });
  });

  describe('group lifecycle', () => {
    it('creates a group as the Terraform provider does, renames it, and deletes it with its memberships', async () => {
      // Kasm's permissions on a group are not this service's: the key is ignored, as the contract says.
      const created = await service.sendAsAdmin('create_group', {
        target_group: { name: ' Support ', priority: 0, description: 'Front line', permissions: ['allow_kasm_sharing'] },
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const group = created.body.group;
      assert.deepEqual(
        { ...group, group_id: undefined },
        {
          group_id: undefined,
          name: 'Support',
          description: 'Front line',
          priority: 0,
          is_system: false,
        },
      );
      const listed = (await service.callAsAdmin('get_groups')).body.groups;
      assert.ok(listed.some((entry: { group_id: string }) => entry.group_id === group.group_id));

      const renamed = await service.callAsAdmin('update_group', {
        target_group: { group_id: group.group_id, name: 'Helpdesk', priority: null },
      });
      assert.equal(renamed.status, 200);
      assert.deepEqual(renamed.body.group, { ...group, name: 'Helpdesk' });

      const user = await service.createUser();
      await service.callAsAdmin('add_user_group', { target_user: { user_id: user.user_id }, target_group: { group_id: group.group_id } });
      const deleted = await service.sendAsAdmin('delete_group', { target_group: { group_id: group.group_id }, force: true });
      assert.equal(deleted.status, 200);
      const after = (await service.store.users.findById(user.user_id))?.record;
      assert.deepEqual(
        after!.groups.map((entry) => entry.name),
        ['All Users'],
        'the membership went with the group; the user stayed',
      );
      assert.equal((await service.callAsAdmin('delete_group', { target_group: { group_id: group.group_id } })).status, 404);
      const operations = (await service.callAsAdmin('get_audit_events', { page_size: 50 })).body.events
        .filter((event: { target_group_id: string }) => event.target_group_id === group.group_id)
        .map((event: { operation: string; changed_fields: string[] }) => `${event.operation} ${event.changed_fields.join(',')}`);
      assert.deepEqual(operations, ['deleteGroup ', 'addUserGroup ', 'updateGroup name', 'createGroup name,description,priority']);
    });

    it('refuses a taken name with 409, and keeps the system group named and in place', async () => {
      await service.callAsAdmin('create_group', { target_group: { name: 'Taken' } });
      const again = await service.callAsAdmin('create_group', { target_group: { name: 'Taken' } });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'group_name_taken');
      const system = (await service.store.groups.list()).find((group) => group.is_system)!;
      const rename = await service.callAsAdmin('update_group', { target_group: { group_id: system.group_id, name: 'Everyone' } });
      assert.equal(rename.status, 409);
      assert.equal(rename.body.code, 'system_group');
      const described = await service.callAsAdmin('update_group', {
        target_group: { group_id: system.group_id, description: 'Every user' },
      });
      assert.equal(described.status, 200, 'a system group may change its description');
      const removal = await service.callAsAdmin('delete_group', { target_group: { group_id: system.group_id } });
      assert.equal(removal.status, 409);
      assert.equal(removal.body.code, 'system_group');
      assert.ok((await service.store.groups.list()).some((group) => group.group_id === system.group_id && group.name === 'All Users'));
    });

    it('asks groups_create, groups_modify and groups_delete', async () => {
      const modifier = await service.createKey({ permissions: ['groups_modify'] });
      assert.equal((await service.call('create_group', { ...modifier, target_group: { name: 'Nope' } })).status, 403);
      const group = (await service.callAsAdmin('create_group', { target_group: { name: 'Kept' } })).body.group;
      assert.equal((await service.call('delete_group', { ...modifier, target_group: { group_id: group.group_id } })).status, 403);
      assert.equal(
        (await service.call('update_group', { ...modifier, target_group: { group_id: group.group_id, description: 'ok' } })).status,
        200,
      );
    });
  });
});
