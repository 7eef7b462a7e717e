import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OPERATIONS, PERMISSIONS, type Permission } from '../contract.js';
import { startTestService, type Answer, type TestService } from '../testing/service.js';

/** Status and body, the parts of an answer a prober could compare. */
const observable = (answer: Answer) => ({ status: answer.status, body: answer.body });

describe('credentials and permissions', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('answers an unknown key and a wrong secret identically', async () => {
    const user = await service.createUser();
    const target_user = { user_id: user.user_id, first_name: 'x' };
    const unknownKey = await service.call('update_user', { api_key: 'unknown-key', api_key_secret: service.admin.api_key_secret, target_user });
    const wrongSecret = await service.call('update_user', { api_key: service.admin.api_key, api_key_secret: 'wrong-secret', target_user });
    assert.deepEqual(observable(unknownKey), observable(wrongSecret));
    assert.deepEqual(observable(unknownKey), { status: 401, body: { error_message: 'Invalid API key or secret', code: 'invalid_credentials' } });
  });

  it('checks credentials before looking up the user, so a bad key learns nothing about users', async () => {
    const user = await service.createUser();
    const bad = { api_key: 'unknown-key', api_key_secret: 'x' };
    const existing = await service.call('update_user', { ...bad, target_user: { user_id: user.user_id } });
    const missing = await service.call('update_user', { ...bad, target_user: { user_id: '0'.repeat(32) } });
    assert.deepEqual(observable(existing), observable(missing));
    assert.equal(existing.status, 401);
  });

  it('refuses an expired key and a revoked key with the same 401', async () => {
    const expired = await service.createKey({ expires: new Date(Date.now() + 1_000) });
    const revoked = await service.createKey();
    assert.equal((await service.call('get_groups', revoked)).status, 200, 'the key works before it is revoked');
    assert.ok(await service.store.revokeApiKey(revoked.api_key, new Date().toISOString()));
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    for (const key of [expired, revoked]) {
      const answer = await service.call('get_groups', key);
      assert.deepEqual(observable(answer), { status: 401, body: { error_message: 'Invalid API key or secret', code: 'invalid_credentials' } });
    }
  });

  it('refuses a key without users_modify with 403 on update_user, and changes nothing', async () => {
    const user = await service.createUser({ first_name: 'Alice' });
    const key = await service.createKey({ permissions: PERMISSIONS.filter((p) => p !== 'users_modify') });
    const answer = await service.call('update_user', { ...key, target_user: { user_id: user.user_id, first_name: 'Mallory' } });
    assert.deepEqual(observable(answer), {
      status: 403,
      body: { error_message: 'This API key lacks the users_modify permission', code: 'permission_denied' },
    });
    assert.equal((await service.store.findUserById(user.user_id))?.first_name, 'Alice');
  });

  describe('every operation requires the permission its x-permission names', () => {
    for (const operation of OPERATIONS.filter((op) => PERMISSIONS.includes(op.permission as Permission))) {
      it(`${operation.operationId} needs ${operation.permission}`, async () => {
        const key = await service.createKey({ permissions: PERMISSIONS.filter((p) => p !== operation.permission) });
        // A body that is valid for every operation's schema is not needed: the validator runs first,
        // so send the minimal valid body for each.
        const bodies: Record<string, Record<string, unknown>> = {
          getUser: { target_user: { user_id: 'a'.repeat(32) } },
          createUser: { target_user: { username: 'perm@example.com' } },
          updateUser: { target_user: { user_id: 'a'.repeat(32) } },
          deleteUser: { target_user: { user_id: 'a'.repeat(32) } },
          addUserGroup: { target_user: { user_id: 'a'.repeat(32) }, target_group: { group_id: 'b'.repeat(32) } },
          removeUserGroup: { target_user: { user_id: 'a'.repeat(32) }, target_group: { group_id: 'b'.repeat(32) } },
        };
        const answer = await service.request(operation.path, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ ...key, ...bodies[operation.operationId] }),
        });
        assert.equal(answer.status, 403, answer.text);
        assert.equal(answer.body.code, 'permission_denied');
      });
    }
  });

  it('validate_credentials describes any valid key, even one with no permissions, never its secret', async () => {
    const key = await service.createKey({ permissions: [], expires: new Date('2099-01-01T00:00:00Z') });
    const answer = await service.call('validate_credentials', key);
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { api_key: key.api_key, name: 'test key', permissions: [], expires: '2099-01-01T00:00:00.000Z' });
    assert.ok(!answer.text.includes(key.api_key_secret));
    assert.equal((await service.call('validate_credentials', { ...key, api_key_secret: 'wrong' })).status, 401);
  });

  it('logs which key made each request, never its secret', async () => {
    const key = await service.createKey({ permissions: ['groups_view'] });
    await service.call('get_groups', key);
    const line = service
      .logs()
      .split('\n')
      .find((entry) => entry.includes(key.api_key) && entry.includes('request completed'));
    assert.ok(line, 'a request line names the key');
    assert.ok(!service.logs().includes(key.api_key_secret));
  });
});

describe('throttling failed credential checks', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ authThrottle: { maxFailures: 3, windowSeconds: 60 } });
  });
  after(() => service.close());

  it('answers 429 with Retry-After once an address has used up its failures, even to valid credentials', async () => {
    for (let attempt = 1; attempt <= 3; attempt++) {
      const answer = await service.call('get_groups', { api_key: 'guess', api_key_secret: `guess-${attempt}` });
      assert.equal(answer.status, 401, `attempt ${attempt}`);
    }
    const blocked = await service.call('get_groups', { api_key: 'guess', api_key_secret: 'guess-4' });
    assert.equal(blocked.status, 429);
    assert.equal(blocked.body.code, 'rate_limited');
    const retryAfter = Number(blocked.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);

    const valid = await service.call('get_groups', service.admin);
    assert.equal(valid.status, 429);
  });

  it('does not count successful checks', async () => {
    const fresh = await startTestService({ authThrottle: { maxFailures: 2, windowSeconds: 60 } });
    try {
      for (let i = 0; i < 5; i++) assert.equal((await fresh.call('get_groups', fresh.admin)).status, 200);
      assert.equal((await fresh.call('get_groups', { ...fresh.admin, api_key_secret: 'x' })).status, 401);
      assert.equal((await fresh.call('get_groups', fresh.admin)).status, 200);
    } finally {
      await fresh.close();
    }
  });
});
