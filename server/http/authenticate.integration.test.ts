import { kasmMembers, textAsideRequest, withoutOccurrence } from '../testing/error-bodies.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { OPERATIONS, PERMISSIONS, type Permission } from '../../lib/contract/operations.js';
import { type Answer, startTestService, type TestService } from '../testing/service.js';
import { TEST_SETUP } from '../testing/test-setup.js';

/** Status and body, the parts of an answer a prober could compare. */
/** What a client may compare of two answers: all but the request each names. */
const observable = (answer: Answer) => ({ status: answer.status, body: withoutOccurrence(answer.body) });
const kasmView = (answer: Answer) => ({ status: answer.status, body: kasmMembers(answer.body) });

describe('credentials and permissions', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('answers an unknown key and a wrong secret identically', async () => {
    const user = await service.createUser();
    const target_user = { user_id: user.user_id, first_name: 'x' };
    const unknownKey = await service.call('update_user', {
      api_key: 'unknown-key',
      api_key_secret: service.admin.api_key_secret,
      target_user,
    });
    const wrongSecret = await service.call('update_user', { api_key: service.admin.api_key, api_key_secret: 'wrong-secret', target_user });
    assert.deepEqual(observable(unknownKey), observable(wrongSecret));
    assert.deepEqual(kasmView(unknownKey), {
      status: 401,
      body: { error_message: 'Invalid API key or secret', code: 'invalid_credentials' },
    });
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
    const expired = await service.createKey({ expires: new Date(Date.now() - 1_000) });
    const revoked = await service.createKey();
    assert.equal((await service.call('get_groups', revoked)).status, 200, 'the key works before it is revoked');
    assert.ok(await service.store.apiKeys.revoke(revoked.api_key, new Date().toISOString(), TEST_SETUP));
    for (const key of [expired, revoked]) {
      const answer = await service.call('get_groups', key);
      assert.deepEqual(kasmView(answer), {
        status: 401,
        body: { error_message: 'Invalid API key or secret', code: 'invalid_credentials' },
      });
    }
  });

  it('refuses a key without users_modify with 403 on update_user, and changes nothing', async () => {
    const user = await service.createUser({ first_name: 'Alice' });
    const key = await service.createKey({ permissions: PERMISSIONS.filter((p) => p !== 'users_modify') });
    const answer = await service.call('update_user', { ...key, target_user: { user_id: user.user_id, first_name: 'Mallory' } });
    assert.deepEqual(kasmView(answer), {
      status: 403,
      body: { error_message: 'This API key lacks the users_modify permission', code: 'permission_denied' },
    });
    assert.equal((await service.store.users.findById(user.user_id))?.record.first_name, 'Alice');
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
          getAttributes: { target_user: { user_id: 'a'.repeat(32) } },
          updateUserAttributes: { target_user_attributes: { user_id: 'a'.repeat(32) } },
          logoutUser: { target_user: { user_id: 'a'.repeat(32) } },
          createGroup: { target_group: { name: 'Permission check' } },
          updateGroup: { target_group: { group_id: 'b'.repeat(32) } },
          deleteGroup: { target_group: { group_id: 'b'.repeat(32) } },
          createWebhook: { target_webhook: { url: 'https://93.184.216.34/permission' } },
          updateWebhook: { target_webhook: { webhook_id: 'c'.repeat(32) } },
          deleteWebhook: { target_webhook: { webhook_id: 'c'.repeat(32) } },
          rotateWebhookSecret: { target_webhook: { webhook_id: 'c'.repeat(32) } },
          getWebhookDeliveries: { target_webhook: { webhook_id: 'c'.repeat(32) } },
          redeliverWebhook: { target_webhook: { webhook_id: 'c'.repeat(32) } },
          pingWebhook: { target_webhook: { webhook_id: 'c'.repeat(32) } },
          createApiKey: { target_api_key: { name: 'Permission check' } },
          revokeApiKey: { target_api_key: { api_key: 'nosuchkey' } },
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

  it('answers 429 with Retry-After to further failures once a client has used up its failures with a key id, and logs it once', async () => {
    const warnings = () => service.logs().match(/failed credential checks past the limit/g)?.length ?? 0;
    const warnedBefore = warnings();
    for (let attempt = 1; attempt <= 3; attempt++) {
      const answer = await service.call('get_groups', { api_key: 'guess', api_key_secret: `guess-${attempt}` });
      assert.equal(answer.status, 401, `attempt ${attempt}`);
    }
    for (const attempt of [4, 5]) {
      const blocked = await service.call('get_groups', { api_key: 'guess', api_key_secret: `guess-${attempt}` });
      assert.equal(blocked.status, 429);
      assert.equal(blocked.body.code, 'rate_limited');
      const retryAfter = Number(blocked.headers.get('retry-after'));
      assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    }
    assert.equal(warnings() - warnedBefore, 1);
    assert.equal(
      (await service.call('get_groups', { api_key: 'other', api_key_secret: 'guess' })).status,
      401,
      'another key id: its own count',
    );
  });

  it('never refuses valid credentials, though their own key id has just failed 50 times from the same address', async () => {
    for (let attempt = 1; attempt <= 50; attempt++) {
      await service.call('get_groups', { api_key: service.admin.api_key, api_key_secret: `wrong-${attempt}` });
    }
    assert.equal((await service.call('get_groups', { api_key: service.admin.api_key, api_key_secret: 'wrong' })).status, 429);
    assert.equal((await service.call('get_groups', service.admin)).status, 200);
    const basic = `Basic ${Buffer.from(`${service.admin.api_key}:${service.admin.api_key_secret}`).toString('base64')}`;
    assert.equal(
      (
        await service.request('/api/public/get_groups', {
          method: 'POST',
          headers: { Authorization: basic, 'Content-Type': 'application/json' },
          body: '{}',
        })
      ).status,
      200,
    );
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

describe("credentials by HTTP Basic, as Kasm's Developer API sends them", () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ authThrottle: { maxFailures: 1_000, windowSeconds: 60 } });
  });
  after(() => service.close());

  const basic = (apiKey: string, secret: string) => `Basic ${Buffer.from(`${apiKey}:${secret}`).toString('base64')}`;
  const post = (operation: string, body: unknown, authorization?: string) =>
    service.request(`/api/public/${operation}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(authorization ? { Authorization: authorization } : {}) },
      body: JSON.stringify(body),
    });
  /** Everything a client sees of a 401, so two can be compared byte for byte. */
  const seen = (answer: Answer) => ({
    status: answer.status,
    text: textAsideRequest(answer.text, answer.headers.get('x-request-id')),
    headers: ['content-type', 'content-length', 'www-authenticate', 'cache-control'].map((name) => answer.headers.get(name)),
  });

  it('answers every operation the same by header as by body', async () => {
    const group = await service.createGroup({ name: 'Compat' });
    const header = basic(service.admin.api_key, service.admin.api_key_secret);
    const byBody = (operation: string, fields: Record<string, unknown> = {}) => post(operation, { ...service.admin, ...fields });
    const byHeader = (operation: string, fields: Record<string, unknown> = {}) => post(operation, fields, header);
    const comparable = (answer: Answer) => ({
      status: answer.status,
      body: JSON.parse(
        answer.text.replace(/"(user_id|created|password_set_date)":"[^"]*"/g, '"$1":"…"').replace(/"username":"[ab]-/g, '"username":"x-'),
      ),
    });

    for (const operation of ['validate_credentials', 'get_users', 'get_groups']) {
      assert.deepEqual(comparable(await byHeader(operation)), comparable(await byBody(operation)), operation);
    }
    // The lifecycle, once each way, on twin users.
    for (const [prefix, send] of [
      ['a', byBody],
      ['b', byHeader],
    ] as const) {
      const created = await send('create_user', {
        target_user: { username: `${prefix}-twin@example.com`, first_name: 'Twin', password: 'Correct-Horse-42' },
      });
      assert.equal(created.status, 200, created.text);
      const user_id = JSON.parse(created.text).user.user_id;
      const steps = [
        await send('get_user', { target_user: { username: `${prefix}-twin@example.com` } }),
        await send('update_user', { target_user: { user_id, last_name: 'Updated' } }),
        await send('add_user_group', { target_user: { user_id }, target_group: { group_id: group.group_id } }),
        await send('remove_user_group', { target_user: { user_id }, target_group: { group_id: group.group_id } }),
        await send('update_user', { target_user: { user_id, password: 'weak' } }),
        await send('delete_user', { target_user: { user_id } }),
        await send('delete_user', { target_user: { user_id } }),
      ];
      assert.deepEqual(
        steps.map((step) => step.status),
        [200, 200, 200, 200, 400, 200, 404],
        `${prefix}: ${steps.map((step) => step.text).join('\n')}`,
      );
    }
  });

  it('gives byte-identical 401s for an unknown key, a wrong secret, an expired and a revoked key, by header and by body', async () => {
    const expired = await service.createKey({ expires: new Date(Date.now() - 1_000) });
    const revoked = await service.createKey();
    assert.ok(await service.store.apiKeys.revoke(revoked.api_key, new Date().toISOString(), TEST_SETUP));
    const wrong = [
      { api_key: 'unknown-key', api_key_secret: service.admin.api_key_secret },
      { api_key: service.admin.api_key, api_key_secret: 'wrong-secret' },
      expired,
      revoked,
    ];
    const answers = [];
    for (const credentials of wrong) {
      answers.push(seen(await post('get_groups', credentials)));
      answers.push(seen(await post('get_groups', {}, basic(credentials.api_key, credentials.api_key_secret))));
    }
    for (const answer of answers) assert.deepEqual(answer, answers[0]);
    assert.equal(answers[0]!.status, 401);
    assert.equal(answers[0]!.headers[2], 'Basic realm="workspace"');
  });

  it('answers no credentials, and a malformed Authorization header, with the same 401', async () => {
    const reference = seen(await post('get_groups', {}));
    assert.equal(reference.status, 401);
    const key = service.admin.api_key;
    for (const authorization of [
      `Bearer ${service.admin.api_key_secret}`,
      // SCIM's token is SCIM's: the workspace API takes its three documented ways only.
      `Bearer ${key}.${service.admin.api_key_secret}`,
      'Basic',
      'Basic !!!not-base64',
      `Basic ${Buffer.from('no colon at all').toString('base64')}`,
      `Basic ${Buffer.from(`:${service.admin.api_key_secret}`).toString('base64')}`,
      `Basic ${Buffer.from(`${key}:`).toString('base64')}`,
      `Basic ${Buffer.concat([Buffer.from(`${key}:`), Buffer.from([0xff, 0xfe])]).toString('base64')}`,
    ]) {
      // A malformed header fails even beside good credentials in the body.
      assert.deepEqual(seen(await post('get_groups', { ...service.admin }, authorization)), reference, authorization);
    }
    assert.deepEqual(seen(await post('get_groups', {}, `Bearer ${key}.${service.admin.api_key_secret}`)), reference, 'a token alone');
    // Well-formed, but a key id no key can have (PostgreSQL cannot even hold the NUL): looked up nowhere.
    assert.deepEqual(seen(await post('get_groups', {}, basic(`${key}\u0000`, service.admin.api_key_secret))), reference);
    assert.equal(
      (await post('get_groups', {}, `basic  ${Buffer.from(`${key}:${service.admin.api_key_secret}`).toString('base64')} `)).status,
      200,
      'the scheme in any case, with spaces',
    );
  });

  it('refuses credentials in both places that disagree with 400, and takes them when they agree', async () => {
    const other = await service.createKey();
    const header = basic(service.admin.api_key, service.admin.api_key_secret);
    for (const body of [other, { ...service.admin, api_key_secret: 'different' }]) {
      const answer = await post('get_groups', body, header);
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.body.code, 'invalid_request');
      assert.match(answer.body.error_message, /Authorization header and in the body differ/);
    }
    assert.equal((await post('get_groups', service.admin, header)).status, 200);
  });

  it('refuses half of the credentials in the body, and logs neither the header nor its secret', async () => {
    const half = await post('get_groups', { api_key: service.admin.api_key }, basic(service.admin.api_key, service.admin.api_key_secret));
    assert.equal(half.status, 400);
    const encoded = basic(service.admin.api_key, service.admin.api_key_secret).slice('Basic '.length);
    assert.ok(!service.logs().includes(encoded));
    assert.ok(!service.logs().includes(service.admin.api_key_secret));
  });
});

describe('the throttle counts failures by header and by body alike', () => {
  it('trips after failures made either way', async () => {
    const service = await startTestService({ authThrottle: { maxFailures: 2, windowSeconds: 60 } });
    try {
      const headers = { 'Content-Type': 'application/json', Authorization: `Basic ${Buffer.from('guess:guess').toString('base64')}` };
      // The same key id both ways: one count.
      assert.equal((await service.request('/api/public/get_groups', { method: 'POST', headers, body: '{}' })).status, 401);
      assert.equal((await service.call('get_groups', { api_key: 'guess', api_key_secret: 'guess' })).status, 401);
      assert.equal((await service.request('/api/public/get_groups', { method: 'POST', headers, body: '{}' })).status, 429);
    } finally {
      await service.close();
    }
  });
});

describe('credentials in the api-key and api-key-secret headers, as some Kasm clients send them', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ authThrottle: { maxFailures: 3, windowSeconds: 60 } });
  });
  after(() => service.close());

  const byHeaders = (operation: string, headers: Record<string, string>, body: unknown = {}) =>
    service.request(`/api/public/${operation}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const keyHeaders = (apiKey: string, secret: string) => ({ 'api-key': apiKey, 'api-key-secret': secret });
  const seen = (answer: Answer) => ({
    status: answer.status,
    text: textAsideRequest(answer.text, answer.headers.get('x-request-id')),
    headers: ['content-type', 'content-length', 'www-authenticate'].map((name) => answer.headers.get(name)),
  });

  it('answers as body credentials do: the same user, the same 401, byte for byte', async () => {
    const user = await service.createUser({ first_name: 'Headed' });
    const headers = keyHeaders(service.admin.api_key, service.admin.api_key_secret);
    const found = await byHeaders('get_user', headers, { target_user: { user_id: user.user_id } });
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body.user.first_name, 'Headed');
    const updated = await byHeaders('update_user', headers, { target_user: { user_id: user.user_id, last_name: 'Kasm' } });
    assert.equal(updated.body.user.last_name, 'Kasm');

    const inBody = seen(await service.call('get_groups', { api_key: 'nobody', api_key_secret: 'wrong' }));
    const wrongOnes: Record<string, string>[] = [
      keyHeaders('nobody2', 'wrong'),
      keyHeaders(service.admin.api_key, 'wrong'),
      { 'api-key': service.admin.api_key }, // the secret left out
      { 'api-key-secret': service.admin.api_key_secret }, // the key left out
      keyHeaders(service.admin.api_key, ''),
    ];
    for (const wrong of wrongOnes) {
      assert.deepEqual(seen(await byHeaders('get_groups', wrong)), inBody, JSON.stringify(Object.keys(wrong)));
    }
  });

  it('goes through the same throttle: 429 past the limit for that key id, and valid headers still pass', async () => {
    const statuses = [];
    for (let attempt = 0; attempt < 5; attempt++) statuses.push((await byHeaders('get_groups', keyHeaders('probe', `x${attempt}`))).status);
    assert.deepEqual(statuses, [401, 401, 401, 429, 429]);
    assert.equal((await service.call('get_groups', { api_key: 'probe', api_key_secret: 'y' })).status, 429, 'by body: the same count');
    assert.equal((await byHeaders('get_groups', keyHeaders(service.admin.api_key, service.admin.api_key_secret))).status, 200);
  });

  it('refuses them beside other credentials that differ, takes them beside the same, and logs neither header', async () => {
    const headers = keyHeaders(service.admin.api_key, service.admin.api_key_secret);
    const other = await service.createKey();
    const differing = await byHeaders('get_groups', headers, other);
    assert.equal(differing.status, 400, differing.text);
    assert.match(differing.body.error_message, /the api-key headers and in the body differ/);
    const basic = `Basic ${Buffer.from(`${other.api_key}:${other.api_key_secret}`).toString('base64')}`;
    const withBasic = await byHeaders('get_groups', { ...headers, Authorization: basic });
    assert.match(withBasic.body.error_message, /the Authorization header and in the api-key headers differ/);
    assert.equal((await byHeaders('get_groups', headers, service.admin)).status, 200);
    assert.ok(!service.logs().includes(service.admin.api_key_secret), 'the secret is in no log line');
    assert.ok(!service.logs().includes(other.api_key_secret));
  });
});
