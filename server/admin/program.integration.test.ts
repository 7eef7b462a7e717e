import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PERMISSIONS } from '../../lib/contract/operations.js';
import { admin as runAdmin } from '../testing/admin.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { startTestService } from '../testing/service.js';

describe('npm run admin, in process', () => {
  let database: TestDatabase;
  const admin = (...args: string[]) => runAdmin(database.url, args);

  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  it('create-key prints a key as JSON that the service accepts, with just the permissions asked for', async () => {
    const run = await admin('create-key', '--name', 'hr-sync', '--permissions', 'users_view,groups_view', '--expires', '2099-12-31');
    assert.equal(run.code, 0, run.stderr);
    const key = JSON.parse(run.stdout);
    assert.match(key.api_key, /^[\w-]{16}$/);
    assert.ok(key.api_key_secret.length >= 43, 'at least 32 random bytes');
    assert.deepEqual(key.permissions, ['users_view', 'groups_view']);
    assert.equal(key.expires, '2099-12-31T00:00:00.000Z');
    assert.equal(key.scim_token, `${key.api_key}.${key.api_key_secret}`);

    const service = await startTestService({ databaseUrl: database.url });
    try {
      const credentials = { api_key: key.api_key, api_key_secret: key.api_key_secret };
      const checked = await service.call('validate_credentials', credentials);
      assert.equal(checked.status, 200);
      assert.equal(checked.body.name, 'hr-sync');
      assert.equal((await service.call('get_groups', credentials)).status, 200);
      assert.equal((await service.call('create_user', { ...credentials, target_user: { username: 'x' } })).status, 403);
      const scim = await service.request('/scim/v2/Groups?count=1', { headers: { Authorization: `Bearer ${key.scim_token}` } });
      assert.equal(scim.status, 200, 'the token is what a SCIM client sends');
    } finally {
      await service.close();
    }
  });

  it('create-key gives no permission unless asked: without --permissions it is a usage error that lists them', async () => {
    const run = await admin('create-key', '--name', 'ops');
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '', 'no key was made');
    assert.match(run.stderr, /create-key needs --permissions: "all", "none" or a comma-separated list of: users_view, /);
    for (const permission of PERMISSIONS) assert.ok(run.stderr.includes(permission), permission);
    const keys = JSON.parse((await admin('list-keys', '--json')).stdout) as { name: string }[];
    assert.ok(!keys.some((key) => key.name === 'ops'));

    const all = JSON.parse((await admin('create-key', '--name', 'ops', '--permissions', 'all')).stdout);
    assert.deepEqual(all.permissions, [...PERMISSIONS]);
    assert.equal(all.expires, null);
  });

  it("update-key changes a key's permissions and expiry at once, audited, and never shows its secret", async () => {
    const key = JSON.parse((await admin('create-key', '--name', 'narrowed', '--permissions', 'all')).stdout);
    const credentials = { api_key: key.api_key, api_key_secret: key.api_key_secret };
    const service = await startTestService({ databaseUrl: database.url });
    try {
      assert.equal((await service.call('get_groups', credentials)).status, 200);
      const run = await admin('update-key', key.api_key, '--permissions', 'users_view', '--expires', '2099-01-31');
      assert.equal(run.code, 0, run.stderr);
      const updated = JSON.parse(run.stdout);
      assert.deepEqual(updated.permissions, ['users_view']);
      assert.equal(updated.expires, '2099-01-31T00:00:00.000Z');
      assert.equal(updated.status, 'active');
      assert.ok(!run.stdout.includes(key.api_key_secret) && !run.stdout.includes('secret_digest'));
      assert.equal((await service.call('get_groups', credentials)).status, 403, 'the running service applies it at once');
      assert.equal((await service.call('get_users', { ...credentials, page_size: 1 })).status, 200);

      const never = JSON.parse((await admin('update-key', key.api_key, '--expires', 'never')).stdout);
      assert.equal(never.expires, null);
      assert.deepEqual(never.permissions, ['users_view'], 'what is not named is kept');

      const events = JSON.parse((await admin('audit', '--json')).stdout) as {
        operation: string;
        target_api_key: string;
        changed_fields: string[];
      }[];
      const changes = events.filter((event) => event.operation === 'updateApiKey' && event.target_api_key === key.api_key);
      assert.deepEqual(
        changes.map((event) => event.changed_fields),
        [['expires'], ['permissions', 'expires']],
      );
    } finally {
      await service.close();
    }
    for (const [args, code, message] of [
      [[key.api_key], 2, /needs --permissions, --expires or both/],
      [[key.api_key, '--permissions', 'root'], 2, /unknown permission root/],
      [['no-such-key', '--expires', 'never'], 1, /No active API key has this id/],
    ] as const) {
      const run = await admin('update-key', ...args);
      assert.equal(run.code, code, args.join(' '));
      assert.match(run.stderr, message);
    }
    await admin('revoke-key', key.api_key);
    const revoked = await admin('update-key', key.api_key, '--permissions', 'all');
    assert.equal(revoked.code, 1, 'a revoked key stays revoked');
  });

  it('create-key refuses an unknown permission, a past or malformed expiry, and a missing name', async () => {
    for (const args of [
      ['--name', 'x', '--permissions', 'users_view,root'],
      ['--name', 'x', '--expires', '2001-01-01'],
      ['--name', 'x', '--expires', 'tomorrow'],
      ['--permissions', 'all'],
    ]) {
      const run = await admin('create-key', ...args);
      assert.equal(run.code, 2, `${args.join(' ')}: a usage error`);
      assert.equal(run.stdout, '');
      assert.match(run.stderr, /error/);
    }
  });

  it('list-keys shows keys and their status, never a secret or its digest', async () => {
    const created = JSON.parse((await admin('create-key', '--name', 'listed', '--permissions', 'users_view')).stdout);
    const run = await admin('list-keys', '--json');
    assert.equal(run.code, 0, run.stderr);
    const keys = JSON.parse(run.stdout) as { api_key: string; name: string; status: string }[];
    assert.equal(keys.find((key) => key.api_key === created.api_key)?.status, 'active');
    assert.ok(!run.stdout.includes(created.api_key_secret));
    assert.ok(!run.stdout.includes('secret_digest'));
    const table = await admin('list-keys');
    assert.match(table.stdout, /listed/);
  });

  it('revoke-key stops a key at once; revoking it again fails', async () => {
    const key = JSON.parse((await admin('create-key', '--name', 'leaving', '--permissions', 'all')).stdout);
    const run = await admin('revoke-key', key.api_key);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).api_key, key.api_key);
    const service = await startTestService({ databaseUrl: database.url });
    try {
      assert.equal((await service.call('validate_credentials', { api_key: key.api_key, api_key_secret: key.api_key_secret })).status, 401);
    } finally {
      await service.close();
    }
    const again = await admin('revoke-key', key.api_key);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /No active API key has this id/);
    const statuses = JSON.parse((await admin('list-keys', '--json')).stdout) as { api_key: string; status: string }[];
    assert.equal(statuses.find((entry) => entry.api_key === key.api_key)?.status, 'revoked');
  });

  it('create-group prints the new group as JSON; a second group of that name is refused; list-groups lists them', async () => {
    const run = await admin('create-group', '--name', 'Engineering');
    assert.equal(run.code, 0, run.stderr);
    const group = JSON.parse(run.stdout);
    assert.match(group.group_id, /^[0-9a-f]{32}$/);
    assert.equal(group.name, 'Engineering');

    const duplicate = await admin('create-group', '--name', 'Engineering');
    assert.equal(duplicate.code, 1);
    assert.match(duplicate.stderr, /Group name is already taken/);

    const listed = JSON.parse((await admin('list-groups', '--json')).stdout) as { name: string }[];
    assert.deepEqual(
      listed.map((entry) => entry.name).filter((name) => ['All Users', 'Engineering'].includes(name)),
      ['All Users', 'Engineering'],
      'the system group and the new one, once each',
    );
  });

  it('create-key --permissions none makes a key that can check itself and do nothing else', async () => {
    const run = await admin('create-key', '--name', 'monitor', '--permissions', 'none');
    assert.equal(run.code, 0, run.stderr);
    const key = JSON.parse(run.stdout);
    assert.deepEqual(key.permissions, []);
    const service = await startTestService({ databaseUrl: database.url });
    try {
      const credentials = { api_key: key.api_key, api_key_secret: key.api_key_secret };
      assert.equal((await service.call('validate_credentials', credentials)).status, 200);
      assert.equal((await service.call('get_groups', credentials)).status, 403);
    } finally {
      await service.close();
    }
  });

  it('delete-group removes a group and its memberships, refuses the system group and an unknown id', async () => {
    const group = JSON.parse((await admin('create-group', '--name', 'Contractors')).stdout);
    const service = await startTestService({ databaseUrl: database.url });
    try {
      const user = await service.createUser();
      const target = { target_user: { user_id: user.user_id }, target_group: { group_id: group.group_id } };
      assert.equal((await service.callAsAdmin('add_user_group', target)).status, 200);

      const run = await admin('delete-group', group.group_id);
      assert.equal(run.code, 0, run.stderr);
      assert.deepEqual(JSON.parse(run.stdout), { group_id: group.group_id, deleted: true });
      const after = await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } });
      assert.deepEqual(
        after.body.user.groups.map((entry: { name: string }) => entry.name),
        ['All Users'],
      );
      assert.equal((await service.callAsAdmin('add_user_group', target)).status, 404);
    } finally {
      await service.close();
    }

    const again = await admin('delete-group', group.group_id);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /Group not found/);
    const system = (JSON.parse((await admin('list-groups', '--json')).stdout) as { group_id: string; is_system: boolean }[]).find(
      (entry) => entry.is_system,
    )!;
    const refused = await admin('delete-group', system.group_id);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /system group/);
  });

  it('audit shows what the admin CLI and the API changed, by whom and in which request, newest first', async () => {
    const created = JSON.parse((await admin('create-key', '--name', 'audited', '--permissions', 'users_create')).stdout);
    assert.equal((await admin('revoke-key', '--', created.api_key)).code, 0);
    const group = JSON.parse((await admin('create-group', '--name', 'Audited')).stdout);
    const service = await startTestService({ databaseUrl: database.url });
    let userId: string;
    let requestId: string | null;
    try {
      const answer = await service.callAsAdmin('create_user', { target_user: { username: 'audited@example.com' } });
      userId = answer.body.user.user_id;
      requestId = answer.headers.get('x-request-id');
    } finally {
      await service.close();
    }

    const run = await admin('audit', '--json', '--since', '2000-01-01');
    assert.equal(run.code, 0, run.stderr);
    const events = JSON.parse(run.stdout) as Record<string, unknown>[];
    const find = (operation: string, field: string, value: string) =>
      events.find((event) => event.operation === operation && event[field] === value);
    assert.equal(find('createApiKey', 'target_api_key', created.api_key)?.actor, 'admin-cli');
    assert.deepEqual(find('createApiKey', 'target_api_key', created.api_key)?.changed_fields, ['name', 'permissions']);
    assert.equal(find('revokeApiKey', 'target_api_key', created.api_key)?.actor, 'admin-cli');
    assert.equal(find('createGroup', 'target_group_id', group.group_id)?.actor, 'admin-cli');
    const made = find('createUser', 'target_user_id', userId);
    assert.equal(made?.request_id, requestId);
    assert.notEqual(made?.actor, 'admin-cli', 'made with an API key, named by its id');
    assert.ok(!run.stdout.includes(created.api_key_secret), 'never a secret');

    const table = await admin('audit', '--user', userId);
    assert.equal(table.code, 0, table.stderr);
    assert.match(table.stdout, /createUser/);
    assert.doesNotMatch(table.stdout, /createApiKey/, '--user shows that user only');
    assert.match((await admin('audit', '--since', 'yesterday')).stderr, /expected an ISO date/);
  });
});
