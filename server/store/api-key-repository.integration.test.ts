import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ApiKeyRecord } from './records.js';
import { TEST_SETUP } from '../testing/test-setup.js';
import type { Store } from './repositories.js';
import { openTestStore, TEST_STORE, type TestStore } from './testing/open-test-store.js';

describe(`ApiKeyRepository (${TEST_STORE})`, () => {
  let opened: TestStore;
  let store: Store;
  before(async () => {
    opened = await openTestStore();
    store = opened.store;
  });
  after(() => opened.close());

  let counter = 0;
  const key = (fields: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
    api_key: `key${(++counter).toString().padStart(13, '0')}`,
    name: 'test',
    secret_digest: 'd'.repeat(64),
    permissions: ['users_view', 'users_modify'],
    created: new Date(Date.UTC(2026, 0, counter)).toISOString(),
    expires: null,
    revoked: null,
    last_used: null,
    ...fields,
  });

  it('inserts the first key only into a store that has none', async () => {
    const empty = await openTestStore();
    try {
      const first = key();
      assert.equal(await empty.store.apiKeys.insertFirst(first, TEST_SETUP), true);
      assert.equal(await empty.store.apiKeys.insertFirst(key(), TEST_SETUP), false);
      assert.deepEqual(await empty.store.apiKeys.list(), [first]);
    } finally {
      await empty.close();
    }
  });

  it('keeps a key as given, permissions in order, none at all included', async () => {
    const plain = key({ permissions: [], expires: '2030-01-01T00:00:00.000Z' });
    const full = key({ permissions: ['groups_modify', 'users_view'] });
    await store.apiKeys.insert(plain, TEST_SETUP);
    await store.apiKeys.insert(full, TEST_SETUP);
    assert.deepEqual(await store.apiKeys.find(plain.api_key), plain);
    assert.deepEqual(await store.apiKeys.find(full.api_key), full);
    assert.equal(await store.apiKeys.find('nosuchkey0000000'), undefined);
  });

  it('lists keys by creation time', async () => {
    // Inserted out of order; each key's id and creation time grow together (see key()).
    const [early, middle, late] = [key(), key(), key()];
    for (const record of [late, early, middle]) await store.apiKeys.insert(record, TEST_SETUP);
    const ids = (await store.apiKeys.list()).map((record) => record.api_key);
    assert.deepEqual(ids, [...ids].sort());
    assert.deepEqual(
      ids.filter((id) => [early, middle, late].some((record) => record.api_key === id)),
      [early.api_key, middle.api_key, late.api_key],
    );
  });

  it('revokes a key once', async () => {
    const record = key();
    await store.apiKeys.insert(record, TEST_SETUP);
    const when = new Date().toISOString();
    assert.equal(await store.apiKeys.revoke(record.api_key, when, TEST_SETUP), true);
    assert.equal(await store.apiKeys.revoke(record.api_key, new Date().toISOString(), TEST_SETUP), false, 'revoked already');
    assert.equal((await store.apiKeys.find(record.api_key))?.revoked, when, 'the first revocation time stays');
    assert.equal(await store.apiKeys.revoke('nosuchkey0000000', when, TEST_SETUP), false);
  });

  it('notes a use only past the last one noted, so that racing instances write once', async () => {
    const record = key();
    await store.apiKeys.insert(record, TEST_SETUP);
    const lastUsed = async () => (await store.apiKeys.find(record.api_key))?.last_used;
    await store.apiKeys.noteUse(record.api_key, '2026-11-27T10:00:00.000Z', '2026-11-27T09:59:00.000Z');
    assert.equal(await lastUsed(), '2026-11-27T10:00:00.000Z', 'the first use');
    await store.apiKeys.noteUse(record.api_key, '2026-11-27T10:00:30.000Z', '2026-11-27T09:59:30.000Z');
    assert.equal(await lastUsed(), '2026-11-27T10:00:00.000Z', 'a use within the minute of the noted one is not written');
    await store.apiKeys.noteUse(record.api_key, '2026-11-27T10:01:01.000Z', '2026-11-27T10:00:01.000Z');
    assert.equal(await lastUsed(), '2026-11-27T10:01:01.000Z', 'a use past the minute is');
  });
});
