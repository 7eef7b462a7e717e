import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { StoredSession } from './records.js';
import type { Store } from './repositories.js';
import { openTestStore, TEST_STORE, type TestStore } from './testing/open-test-store.js';

describe(`ConsoleSessionRepository (${TEST_STORE})`, () => {
  let opened: TestStore;
  let store: Store;
  before(async () => {
    opened = await openTestStore();
    store = opened.store;
  });
  after(() => opened.close());

  let counter = 0;
  const session = (fields: Partial<StoredSession> = {}): StoredSession => ({
    tokenDigest: `digest-${++counter}`,
    apiKey: 'key0000000000001',
    created: '2026-11-27T10:00:00.000Z',
    lastSeen: '2026-11-27T10:00:00.000Z',
    expires: '2026-11-27T22:00:00.000Z',
    ...fields,
  });

  it('keeps a session by its digest, notes a request only past the one noted, and deletes it', async () => {
    const kept = session();
    await store.consoleSessions.create(kept);
    assert.deepEqual(await store.consoleSessions.find(kept.tokenDigest), kept);
    await store.consoleSessions.touch(kept.tokenDigest, '2026-11-27T10:00:30.000Z', '2026-11-27T09:59:30.000Z');
    assert.equal((await store.consoleSessions.find(kept.tokenDigest))?.lastSeen, kept.lastSeen, 'within the minute: not written');
    await store.consoleSessions.touch(kept.tokenDigest, '2026-11-27T10:01:05.000Z', '2026-11-27T10:00:05.000Z');
    assert.equal((await store.consoleSessions.find(kept.tokenDigest))?.lastSeen, '2026-11-27T10:01:05.000Z');
    await store.consoleSessions.delete(kept.tokenDigest);
    assert.equal(await store.consoleSessions.find(kept.tokenDigest), undefined);
  });

  it('prunes the sessions past their expiry or idle, and only those', async () => {
    const expired = session({ expires: '2026-11-27T11:00:00.000Z', lastSeen: '2026-11-27T10:59:00.000Z' });
    const idle = session({ lastSeen: '2026-11-27T10:20:00.000Z' });
    const live = session({ lastSeen: '2026-11-27T10:45:00.000Z' });
    for (const each of [expired, idle, live]) await store.consoleSessions.create(each);
    assert.equal(await store.consoleSessions.prune('2026-11-27T11:00:00.000Z', '2026-11-27T10:30:00.000Z'), 2);
    assert.equal(await store.consoleSessions.find(expired.tokenDigest), undefined);
    assert.equal(await store.consoleSessions.find(idle.tokenDigest), undefined);
    assert.deepEqual(await store.consoleSessions.find(live.tokenDigest), live);
  });
});
