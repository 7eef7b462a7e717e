/**
 * The rules of API keys, once on each store: a key that manages keys reaches no
 * further than itself (the permissions it holds, an expiry no later than its
 * own, the keys it could have made), names and expiries are checked here for
 * every door, and each change is audited without its secret.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openTestStore, TEST_STORE, type TestStore } from '../store/testing/open-test-store.js';
import { aKey } from '../testing/factories.js';
import { assertRefuses } from '../testing/refusals.js';
import { TEST_SETUP } from '../testing/test-setup.js';
import { createDirectory, type ApiKeyRecord, type ChangeAuthor, type Directory } from './index.js';

const HOUR = 3_600_000;
const BY_KEY: ChangeAuthor = { actor: 'a-manager-key', requestId: 'req-1', protocol: 'workspace' };

describe(`the directory's API keys (${TEST_STORE})`, () => {
  let opened: TestStore;
  let directory: Directory;
  /** A key that manages keys and may view users, expiring in a day. */
  let manager: ApiKeyRecord;
  before(async () => {
    opened = await openTestStore();
    directory = createDirectory(opened.store);
    manager = (await aKey(directory, { permissions: ['keys_manage', 'users_view'], expires: new Date(Date.now() + 24 * HOUR) })).record;
  });
  after(() => opened.close());

  const inAnHour = () => new Date(Date.now() + HOUR);

  it('grants only permissions the granting key holds, each once, in the contract order', async () => {
    const { record } = await directory.keys.create(
      { name: 'viewer', permissions: ['users_view', 'keys_manage', 'users_view'], expires: inAnHour() },
      BY_KEY,
      manager,
    );
    assert.deepEqual(record.permissions, ['users_view', 'keys_manage']);
    await assertRefuses(
      directory.keys.create({ name: 'deleter', permissions: ['users_view', 'users_delete'], expires: inAnHour() }, BY_KEY, manager),
      { kind: 'grant_exceeds_key', reason: 'A key grants only permissions it holds itself: this key lacks users_delete' },
    );
  });

  it('grants no expiry later than its own, and so no key that never expires from one that does', async () => {
    const own = new Date(manager.expires!);
    await assertRefuses(directory.keys.create({ name: 'forever', permissions: [], expires: null }, BY_KEY, manager), {
      kind: 'grant_exceeds_key',
    });
    await assertRefuses(directory.keys.create({ name: 'later', permissions: [], expires: new Date(own.getTime() + 1) }, BY_KEY, manager), {
      kind: 'grant_exceeds_key',
    });
    const same = await directory.keys.create({ name: 'as long', permissions: [], expires: own }, BY_KEY, manager);
    assert.equal(same.record.expires, manager.expires);
    const fromOperator = await directory.keys.create(
      { name: 'forever', permissions: ['users_delete'], expires: null },
      TEST_SETUP,
      'operator',
    );
    assert.deepEqual([fromOperator.record.permissions, fromOperator.record.expires], [['users_delete'], null]);
  });

  it('takes a name trimmed, not blank, without control characters, at most 100 code points; an expiry in the future', async () => {
    const make = (name: string, expires: Date | null = null) =>
      directory.keys.create({ name, permissions: [], expires }, TEST_SETUP, 'operator');
    assert.equal((await make('  hr-sync\u00a0')).record.name, 'hr-sync');
    assert.equal((await make('🔑'.repeat(100))).record.name.length, 200, 'code points are counted, not UTF-16 units');
    await assertRefuses(make('🔑'.repeat(101)), { kind: 'invalid_api_key', field: 'name' });
    await assertRefuses(make('tab\there'), { kind: 'invalid_api_key', field: 'name', reason: 'has a control character' });
    await assertRefuses(make(' \t '), { kind: 'invalid_api_key', field: 'name', reason: 'is empty' });
    await assertRefuses(make('line\nbreak'), { kind: 'invalid_api_key', field: 'name' });
    await assertRefuses(make('past', new Date(Date.now() - 1)), { kind: 'invalid_api_key', field: 'expires' });
    const { record } = await make('to change');
    await assertRefuses(directory.keys.update(record.api_key, { expires: new Date(Date.now() - 1).toISOString() }, TEST_SETUP), {
      kind: 'invalid_api_key',
      field: 'expires',
    });
  });

  it('revokes only keys whose permissions the revoking key holds, itself included, and each once', async () => {
    const stronger = (await aKey(directory, { permissions: ['users_view', 'users_delete'] })).record;
    await assertRefuses(directory.keys.revoke(stronger.api_key, BY_KEY, manager), {
      kind: 'grant_exceeds_key',
      reason: 'A key revokes only keys whose permissions it holds: this key lacks users_delete',
    });
    const weaker = (await aKey(directory, { permissions: ['users_view'] })).record;
    const revoked = await directory.keys.revoke(weaker.api_key, BY_KEY, manager);
    assert.ok(revoked.revoked !== null && Date.parse(revoked.revoked) <= Date.now());
    assert.deepEqual({ ...revoked, revoked: null }, weaker);
    await assertRefuses(directory.keys.revoke(weaker.api_key, BY_KEY, manager), { kind: 'not_found', entity: 'api_key' });
    await assertRefuses(directory.keys.revoke('nosuchkey', BY_KEY, manager), { kind: 'not_found', entity: 'api_key' });

    const self = (await aKey(directory, { permissions: ['keys_manage'] })).record;
    assert.notEqual((await directory.keys.revoke(self.api_key, BY_KEY, self)).revoked, null, 'a key may revoke itself');
  });

  it('lists the active keys, and the revoked ones when asked', async () => {
    const gone = (await aKey(directory)).record;
    await directory.keys.revoke(gone.api_key, TEST_SETUP, 'operator');
    const active = (await directory.keys.list()).map((key) => key.api_key);
    assert.ok(active.includes(manager.api_key) && !active.includes(gone.api_key));
    const every = await directory.keys.list({ includeRevoked: true });
    assert.ok(every.some((key) => key.api_key === gone.api_key && key.revoked !== null));
  });

  it('audits each key change under its author, naming the fields and never the secret', async () => {
    const { record, secret } = await directory.keys.create(
      { name: 'audited', permissions: ['users_view'], expires: inAnHour() },
      BY_KEY,
      manager,
    );
    await directory.keys.revoke(record.api_key, BY_KEY, manager);
    const { events } = await directory.auditEvents({ pageSize: 100, actor: BY_KEY.actor });
    const own = events.filter((event) => event.target_api_key === record.api_key);
    assert.deepEqual(
      own.map((event) => [event.operation, event.changed_fields, event.request_id]),
      [
        ['revokeApiKey', ['revoked'], 'req-1'],
        ['createApiKey', ['name', 'permissions', 'expires'], 'req-1'],
      ],
    );
    assert.ok(!JSON.stringify(own).includes(secret) && !JSON.stringify(own).includes(record.secret_digest));
  });
});
