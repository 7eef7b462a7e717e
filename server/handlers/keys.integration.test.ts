/**
 * The key operations on the wire: the secret shown once and nowhere after
 * (not in the listing, the audit trail, the change feed or the log), the new
 * key working with what it was granted, keys_manage required, a grant past the
 * key's own answered 403 grant_exceeds_key, and a revoked key refused at once.
 * The rules themselves are tested in server/directory/keys.integration.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { scimToken } from '../../lib/contract/credentials.js';
import { startTestService, type TestService } from '../testing/service.js';

describe('the API key operations', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('make a key whose secret is shown once, list it with its last use, and revoke it', async () => {
    const made = await service.callAsAdmin('create_api_key', {
      target_api_key: { name: ' hr-sync ', permissions: ['users_view'], expires: '2099-01-01T00:00:00Z' },
    });
    assert.equal(made.status, 200, made.text);
    const { api_key: key, secret, scim_token } = made.body;
    assert.deepEqual(
      [key.name, key.permissions, key.expires, key.revoked, key.last_used],
      ['hr-sync', ['users_view'], '2099-01-01T00:00:00.000Z', null, null],
    );
    const credentials = { api_key: key.api_key, api_key_secret: secret };
    assert.equal(scim_token, scimToken(credentials));

    const checked = await service.call('validate_credentials', credentials);
    assert.deepEqual([checked.status, checked.body.permissions], [200, ['users_view']], 'the new key works, with what it was granted');
    const listedOnce = async () =>
      ((await service.callAsAdmin('get_api_keys', {})).body.api_keys as { api_key: string; last_used: string | null }[]).find(
        (listed) => listed.api_key === key.api_key,
      );
    // The use is noted beside the request, not before its answer: asked for until it shows.
    let listed = await listedOnce();
    for (let tries = 0; listed?.last_used === null && tries < 100; tries++) listed = await listedOnce();
    assert.ok(listed?.last_used && Date.parse(listed.last_used) >= Date.parse(key.created), 'its use is noted');

    const revoked = await service.callAsAdmin('revoke_api_key', { target_api_key: { api_key: key.api_key } });
    assert.equal(revoked.status, 200, revoked.text);
    assert.ok(revoked.body.api_key.revoked !== null);
    assert.equal((await service.call('validate_credentials', credentials)).status, 401, 'a revoked key stops working at once');
    const again = await service.callAsAdmin('revoke_api_key', { target_api_key: { api_key: key.api_key } });
    assert.deepEqual([again.status, again.body.code], [404, 'api_key_not_found']);

    const active = await service.callAsAdmin('get_api_keys', {});
    assert.ok(!active.body.api_keys.some((listed: { api_key: string }) => listed.api_key === key.api_key), 'revoked keys are left out');
    const every = await service.callAsAdmin('get_api_keys', { include_revoked: true });
    assert.ok(every.body.api_keys.some((listed: { api_key: string }) => listed.api_key === key.api_key));

    const told = [
      every.text,
      (await service.callAsAdmin('get_audit_events', { page_size: 100 })).text,
      (await service.callAsAdmin('get_events', { resource_id: key.api_key })).text,
      service.logs(),
    ];
    for (const text of told) assert.ok(!text.includes(secret), 'the secret is shown only when made');
    assert.deepEqual(
      (await service.callAsAdmin('get_events', { resource_id: key.api_key })).body.events.map((event: { type: string }) => event.type),
      ['api_key.created', 'api_key.revoked'],
    );
  });

  it('need keys_manage, and grant nothing past the key itself', async () => {
    const viewer = await service.createKey({ permissions: ['users_view'] });
    for (const [operation, body] of [
      ['create_api_key', { target_api_key: { name: 'x' } }],
      ['get_api_keys', {}],
      ['revoke_api_key', { target_api_key: { api_key: viewer.api_key } }],
    ] as const) {
      const denied = await service.send(operation, { ...viewer, ...body });
      assert.deepEqual([denied.status, denied.body.code], [403, 'permission_denied'], operation);
    }

    const manager = await service.createKey({ permissions: ['keys_manage', 'users_view'], expires: new Date(Date.now() + 3_600_000) });
    const wider = await service.call('create_api_key', { ...manager, target_api_key: { name: 'wider', permissions: ['users_delete'] } });
    assert.deepEqual(
      [wider.status, wider.body.code, wider.body.error_message],
      [403, 'grant_exceeds_key', 'A key grants only permissions it holds itself: this key lacks users_delete'],
    );
    const forever = await service.call('create_api_key', { ...manager, target_api_key: { name: 'forever', permissions: ['users_view'] } });
    assert.deepEqual([forever.status, forever.body.code], [403, 'grant_exceeds_key'], 'a key that expires grants none that never does');
    const stronger = await service.call('revoke_api_key', { ...manager, target_api_key: { api_key: service.admin.api_key } });
    assert.deepEqual([stronger.status, stronger.body.code], [403, 'grant_exceeds_key']);

    const blank = await service.callAsAdmin('create_api_key', { target_api_key: { name: '   ' } });
    assert.deepEqual([blank.status, blank.body.errors?.[0]?.path], [400, '/body/target_api_key/name']);
    const past = await service.callAsAdmin('create_api_key', { target_api_key: { name: 'past', expires: '2001-01-01T00:00:00Z' } });
    assert.deepEqual([past.status, past.body.code, past.body.errors?.[0]?.path], [400, 'invalid_request', '/body/target_api_key/expires']);
  });
});
