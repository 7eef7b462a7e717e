/**
 * Idempotency keys on both doors (http/idempotency.ts): a retry replays the
 * first answer and changes nothing; another request under the key is 422; a
 * retry while the first runs is 409; failures and refusals of the input are not
 * kept; a change whose answer was never kept is not made again; keys are their
 * API key's own and expire.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { scimToken } from '../../lib/contract/credentials.js';
import { ANSWER_PENDING_MS } from './idempotency.js';
import { StoreUnavailableError } from '../store/faults.js';
import type { Store } from '../store/repositories.js';
import { startTestService, type Answer, type TestService } from '../testing/service.js';
import { withOverrides } from '../testing/store-overrides.js';

/** Holds the next user created until released: a slow write, held open. */
class HeldCreate {
  #release: (() => void) | undefined;
  #arrived: (() => void) | undefined;
  /** Resolves once a create is held. */
  arrived = new Promise<void>((resolve) => (this.#arrived = resolve));
  hold = () => new Promise<void>((resolve) => ((this.#release = resolve), this.#arrived?.()));
  release = () => this.#release?.();
}

describe('Idempotency-Key', () => {
  let service: TestService;
  let held: HeldCreate | undefined;
  /** Fails the next user update as a database fault would, when set. */
  let failNextUpdate = false;
  /** Has the next look for a key find nothing, as when another instance takes it just after. */
  let missNextKey = false;
  before(async () => {
    service = await startTestService({
      webhooks: { resolve: async () => ['93.184.216.34'] },
      wrapStore: (store: Store) =>
        withOverrides(store, {
          idempotency: {
            find: async (...args) => {
              if (!missNextKey) return store.idempotency.find(...args);
              missNextKey = false;
              return undefined;
            },
          },
          users: {
            create: async (...args) => {
              await held?.hold();
              return store.users.create(...args);
            },
            update: async (...args) => {
              if (failNextUpdate) {
                failNextUpdate = false;
                throw new StoreUnavailableError('unreachable', { cause: new Error('connection refused') });
              }
              return store.users.update(...args);
            },
          },
        }),
    });
  });
  after(() => service.close());

  let counter = 0;
  const username = () => `idem${++counter}-${randomUUID().slice(0, 8)}@example.com`;
  const post = (operation: string, body: unknown, key: string | undefined, headers: Record<string, string> = {}) =>
    service.request(`/api/public/${operation}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(key === undefined ? {} : { 'Idempotency-Key': key }), ...headers },
      body: JSON.stringify(body),
    });
  const createUser = (name: string, key: string | undefined, extra: Record<string, unknown> = {}) =>
    post('create_user', { ...service.admin, target_user: { username: name, ...extra } }, key);
  const usersNamed = async (name: string) => (await service.inspection.rows('users')).filter((row) => row.username === name).length;
  const withoutRequestId = (answer: Answer) => ({ status: answer.status, body: answer.body, etag: answer.headers.get('etag') });

  it('replays the first answer to a retry (status, body, version), and makes the user once', async () => {
    const key = randomUUID();
    const name = username();
    const first = await createUser(name, key);
    assert.equal(first.status, 200, first.text);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    const retry = await createUser(name, key);
    assert.deepEqual(withoutRequestId(retry), withoutRequestId(first));
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.headers.get('content-type'), first.headers.get('content-type'));
    assert.equal(await usersNamed(name), 1);
    // Quoted, as the draft's structured field, it is the same key.
    assert.equal((await createUser(name, `"${key}"`)).headers.get('idempotent-replayed'), 'true');
    // A retry with the secret in a header instead of the body is the same request.
    const byHeader = await post('create_user', { target_user: { username: name } }, key, {
      'api-key': service.admin.api_key,
      'api-key-secret': service.admin.api_key_secret,
    });
    assert.equal(byHeader.headers.get('idempotent-replayed'), 'true');
    const events = (await service.inspection.rows('audit_events')).filter(
      (row) => row.operation === 'createUser' && row.target_user_id === first.body.user.user_id,
    );
    assert.equal(events.length, 1, 'one change, one event');
  });

  it('refuses the key with another body or another operation: 422, nothing changed', async () => {
    const key = randomUUID();
    const name = username();
    assert.equal((await createUser(name, key)).status, 200);
    const other = username();
    const reused = await createUser(other, key);
    assert.equal(reused.status, 422);
    assert.equal(reused.body.code, 'idempotency_key_reused');
    assert.equal(await usersNamed(other), 0);
    const elsewhere = await post('create_group', { ...service.admin, target_group: { name: `g-${randomUUID()}` } }, key);
    assert.equal(elsewhere.status, 422);
  });

  it('answers 409 to a retry while the first request runs, then replays its answer', { timeout: 10_000 }, async () => {
    const key = randomUUID();
    const name = username();
    held = new HeldCreate();
    const first = createUser(name, key);
    await held.arrived;
    const meanwhile = await createUser(name, key);
    assert.equal(meanwhile.status, 409);
    assert.equal(meanwhile.body.code, 'idempotency_key_in_use');
    held.release();
    held = undefined;
    assert.equal((await first).status, 200);
    assert.equal((await createUser(name, key)).headers.get('idempotent-replayed'), 'true');
    assert.equal(await usersNamed(name), 1);
  });

  it('keeps neither a refusal of the input nor a failure: the same key works once they are put right', async () => {
    const key = randomUUID();
    const name = username();
    const weak = await createUser(name, key, { password: 'Password1!' });
    assert.equal(weak.status, 400);
    assert.equal((await createUser(name, key, { password: 'Correct-Horse-42-Staple' })).status, 200, 'the corrected request runs');

    const user = await service.createUser();
    const updateKey = randomUUID();
    const update = () => post('update_user', { ...service.admin, target_user: { user_id: user.user_id, first_name: 'Ada' } }, updateKey);
    failNextUpdate = true;
    assert.equal((await update()).status, 503);
    const retried = await update();
    assert.equal(retried.status, 200);
    assert.equal(retried.headers.get('idempotent-replayed'), null, 'the failed attempt was not kept: the retry ran');
  });

  it('keeps a refusal of the directory (409): its retry gets it again', async () => {
    const taken = (await service.createUser()).username;
    const key = randomUUID();
    const first = await createUser(taken, key);
    assert.equal(first.status, 409);
    const retry = await createUser(taken, key);
    assert.equal(retry.status, 409);
    assert.equal(retry.body.code, 'username_taken');
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
  });

  it('does not make a change again when its answer was never kept (the service stopped in between)', async () => {
    const key = randomUUID();
    const name = username();
    assert.equal((await createUser(name, key)).status, 200);
    // As if the service had stopped between the commit and keeping the answer, long enough ago.
    const long = new Date(Date.now() - ANSWER_PENDING_MS - 1000).toISOString();
    await service.inspection.execute(
      sql`update idempotency_keys set status = null, answer = null, created = ${long} where idempotency_key = ${key}`,
    );
    const retry = await createUser(name, key);
    assert.equal(retry.status, 409);
    assert.equal(retry.body.code, 'idempotency_answer_not_kept');
    assert.equal(await usersNamed(name), 1);
    // Just after the commit, the request is still taken to be running.
    await service.inspection.execute(sql`update idempotency_keys set created = ${new Date().toISOString()} where idempotency_key = ${key}`);
    assert.equal((await createUser(name, key)).body.code, 'idempotency_key_in_use');
  });

  it('undoes a change whose key another instance took meanwhile, and answers 409', async () => {
    const key = randomUUID();
    const user = await service.createUser({ first_name: 'Before' });
    const update = () => post('update_user', { ...service.admin, target_user: { user_id: user.user_id, first_name: 'After' } }, key);
    assert.equal((await update()).status, 200);
    // The same key, as another instance holds it: the row is there, another request's.
    await service.inspection.execute(
      sql`update idempotency_keys set holder = 'another instance', status = null, answer = null where idempotency_key = ${key}`,
    );
    await service.inspection.execute(sql`update users set first_name = 'Before' where user_id = ${user.user_id}`);
    missNextKey = true;
    const raced = await update();
    assert.equal(raced.status, 409);
    assert.equal(raced.body.code, 'idempotency_key_in_use');
    const [row] = (await service.inspection.rows('users')).filter((candidate) => candidate.user_id === user.user_id);
    assert.equal(row?.first_name, 'Before', 'the change made under a key held elsewhere is undone');
  });

  it('keeps the keys of two API keys apart', async () => {
    const key = randomUUID();
    const other = await service.createKey();
    const [mine, theirs] = [username(), username()];
    assert.equal((await createUser(mine, key)).status, 200);
    const answer = await post('create_user', { ...other, target_user: { username: theirs } }, key);
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('idempotent-replayed'), null);
    assert.equal(await usersNamed(theirs), 1);
  });

  it('lets a key be used again once it has expired', async () => {
    const key = randomUUID();
    const name = username();
    assert.equal((await createUser(name, key)).status, 200);
    await service.inspection.execute(
      sql`update idempotency_keys set expires = ${new Date(Date.now() - 1000).toISOString()} where idempotency_key = ${key}`,
    );
    const another = username();
    const answer = await createUser(another, key);
    assert.equal(answer.status, 200, 'a new request under the old key');
    assert.equal(await usersNamed(another), 1);
  });

  it("never keeps or replays a webhook's secret: its retry is 409 and the webhook is made once", async () => {
    const key = randomUUID();
    const body = { ...service.admin, target_webhook: { url: 'https://hooks.example.com/idempotent', event_types: ['user.created'] } };
    const first = await post('create_webhook', body, key);
    assert.equal(first.status, 200, first.text);
    const retry = await post('create_webhook', body, key);
    assert.equal(retry.status, 409);
    assert.equal(retry.body.code, 'idempotency_answer_not_kept');
    assert.ok(!retry.text.includes(first.body.secret));
    const kept = (await service.inspection.rows('idempotency_keys')).find((row) => row.idempotency_key === key);
    assert.equal(kept?.answer, null, 'the secret is not stored with the key');
    const hooks = (await service.inspection.rows('webhooks')).filter((row) => row.url === body.target_webhook.url);
    assert.equal(hooks.length, 1);
  });

  it('refuses a malformed key as invalid input', async () => {
    for (const bad of ['', 'two words', 'x'.repeat(256), '"unclosed']) {
      const answer = await createUser(username(), bad);
      assert.equal(answer.status, 400, JSON.stringify(bad));
    }
  });

  it('works for SCIM: a retried POST gets the same 201, Location and ETag, and one user', async () => {
    const key = randomUUID();
    const name = username();
    const send = () =>
      service.request('/scim/v2/Users', {
        method: 'POST',
        headers: {
          'Content-Type': 'application/scim+json',
          Authorization: `Bearer ${scimToken(service.admin)}`,
          'Idempotency-Key': key,
        },
        body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: name }),
      });
    const first = await send();
    assert.equal(first.status, 201, first.text);
    const retry = await send();
    assert.equal(retry.status, 201);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.headers.get('location'), first.headers.get('location'));
    assert.equal(retry.headers.get('etag'), first.headers.get('etag'));
    assert.match(retry.headers.get('content-type') ?? '', /application\/scim\+json/);
    assert.deepEqual(retry.body, first.body);
    assert.equal(await usersNamed(name), 1);
    const reused = await service.request('/scim/v2/Users', {
      method: 'POST',
      headers: { 'Content-Type': 'application/scim+json', Authorization: `Bearer ${scimToken(service.admin)}`, 'Idempotency-Key': key },
      body: JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: username() }),
    });
    assert.equal(reused.status, 422);
    assert.equal(reused.body.scimType, 'idempotencyKeyReused');
  });
});
