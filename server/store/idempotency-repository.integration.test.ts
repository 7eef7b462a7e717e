/**
 * Idempotency keys in the store (idempotency-repository.ts), on both databases:
 * the key recorded by the change's own transaction, or not at all; one request's
 * key refusing another's change; answers kept, withheld, expired and pruned.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { TEST_SETUP } from '../testing/test-setup.js';
import { type ChangeAuthor, type IdempotencyClaim, IdempotencyKeyHeldError, NameTakenError } from './records.js';
import type { Store } from './repositories.js';
import { newUserRecord, openTestStore, TEST_STORE, type TestStore } from './testing/open-test-store.js';

const HOUR = 3_600_000;

function claimOf(key = randomUUID(), fields: Partial<IdempotencyClaim> = {}): IdempotencyClaim {
  const now = Date.now();
  return {
    apiKey: 'K'.repeat(16),
    key,
    fingerprint: 'f'.repeat(64),
    holder: randomUUID(),
    created: new Date(now).toISOString(),
    expires: new Date(now + HOUR).toISOString(),
    ...fields,
  };
}

const under = (idempotency: IdempotencyClaim): ChangeAuthor => ({ ...TEST_SETUP, idempotency });

describe(`IdempotencyRepository (${TEST_STORE})`, () => {
  let opened: TestStore;
  let store: Store;
  before(async () => {
    opened = await openTestStore();
    store = opened.store;
  });
  after(() => opened.close());

  const rowsOf = async (key: string) => (await opened.inspection.rows('idempotency_keys')).filter((row) => row.idempotency_key === key);
  let counter = 0;
  const newUser = () => newUserRecord({ username: `idempotent${++counter}@example.com` });
  const exists = async (username: string) => (await store.users.findByUsername(username)) !== undefined;

  it("records the key in the change's own transaction, and not at all when the change fails", async () => {
    const claim = claimOf();
    const made = await store.users.create(newUser(), under(claim));
    const [row] = await rowsOf(claim.key);
    assert.equal(row?.holder, claim.holder);
    assert.equal(row?.fingerprint, claim.fingerprint);
    assert.equal(row?.status, null, 'no answer yet');

    const refused = claimOf();
    await assert.rejects(store.users.create({ ...newUser(), username: made.record.username }, under(refused)), NameTakenError);
    assert.deepEqual(await rowsOf(refused.key), [], 'the failed change took its key with it');
  });

  it("undoes a change made under a key another request holds, and leaves the holder's alone", async () => {
    const first = claimOf();
    await store.users.create(newUser(), under(first));
    const intruder = newUser();
    await assert.rejects(store.users.create(intruder, under({ ...first, holder: randomUUID() })), IdempotencyKeyHeldError);
    assert.equal(await exists(intruder.username), false, 'the second change is not made');
    // The same request may make a second change under its key (a create with members, say).
    const second = newUser();
    await store.users.create(second, under(first));
    assert.ok(await exists(second.username));
    assert.equal((await rowsOf(first.key)).length, 1);
  });

  it('keeps the answer of the request that holds the key, and no other', async () => {
    const claim = claimOf();
    await store.users.create(newUser(), under(claim));
    const answer = { status: 200, headers: { 'content-type': 'application/json; charset=utf-8', etag: 'W/"1"' }, body: '{"user":{}}' };
    await store.idempotency.keep({ ...claim, holder: randomUUID() }, { ...answer, status: 201 });
    assert.equal((await store.idempotency.find(claim.apiKey, claim.key, new Date().toISOString()))?.answer, undefined);
    await store.idempotency.keep(claim, answer);
    const found = await store.idempotency.find(claim.apiKey, claim.key, new Date().toISOString());
    assert.deepEqual(found, { fingerprint: claim.fingerprint, holder: claim.holder, created: claim.created, answer });
    // Under another API key the same key is another request's.
    assert.equal(await store.idempotency.find('L'.repeat(16), claim.key, new Date().toISOString()), undefined);
  });

  it('keeps an answer for a request that changed nothing, and only the status of a withheld one', async () => {
    const unchanged = claimOf();
    await store.idempotency.keep(unchanged, { status: 404, headers: {}, body: '{}' });
    assert.equal((await store.idempotency.find(unchanged.apiKey, unchanged.key, new Date().toISOString()))?.answer?.status, 404);
    const secret = claimOf();
    await store.idempotency.keep(secret, { status: 200, withheld: true });
    assert.deepEqual((await store.idempotency.find(secret.apiKey, secret.key, new Date().toISOString()))?.answer, {
      status: 200,
      withheld: true,
    });
    assert.equal((await rowsOf(secret.key))[0]?.answer, null, 'nothing of the answer is stored');
  });

  it('ignores a key past its time, forgets it for a new request, and prunes the expired keys', async () => {
    const past = new Date(Date.now() - 2 * HOUR);
    const expired = claimOf(undefined, { created: past.toISOString(), expires: new Date(past.getTime() + HOUR).toISOString() });
    const current = claimOf();
    await store.idempotency.keep(expired, { status: 200, headers: {}, body: '{}' });
    await store.idempotency.keep(current, { status: 200, headers: {}, body: '{}' });
    const now = new Date().toISOString();
    assert.equal(await store.idempotency.find(expired.apiKey, expired.key, now), undefined);
    await store.idempotency.forgetExpired(current.apiKey, current.key, now);
    assert.equal((await rowsOf(current.key)).length, 1, 'a current key is not forgotten');
    await store.idempotency.forgetExpired(expired.apiKey, expired.key, now);
    assert.deepEqual(await rowsOf(expired.key), []);

    const another = claimOf(undefined, { created: past.toISOString(), expires: new Date(past.getTime() + HOUR).toISOString() });
    await store.idempotency.keep(another, { status: 200, headers: {}, body: '{}' });
    assert.ok((await store.idempotency.prune(now, 1000)) >= 1);
    assert.deepEqual(await rowsOf(another.key), []);
    assert.equal((await rowsOf(current.key)).length, 1, 'pruning leaves current keys');
  });
});
