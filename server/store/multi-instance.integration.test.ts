/**
 * Two service instances on different ports sharing one database, as behind a
 * load balancer: what one instance does, the other sees, and the database,
 * not either instance, keeps usernames unique. Runs on SQLite and, under
 * scripts/with-postgres.ts, on PostgreSQL, the store meant for this.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { TEST_STORE } from '../testing/database.js';
import { type Fields, startTestService, type TestService } from '../testing/service.js';
import { TEST_SETUP } from '../testing/test-setup.js';

describe(`two instances sharing one ${TEST_STORE} database`, () => {
  let first: TestService;
  let second: TestService;
  before(async () => {
    first = await startTestService();
    second = await startTestService({ databaseUrl: first.databaseUrl });
  });
  after(async () => {
    await second.close();
    await first.close();
  });

  const update = (service: TestService, target_user: Fields<'update_user'>['target_user']) =>
    service.call('update_user', { ...first.admin, target_user });

  it('applies concurrent updates of different fields through both, losing none', async () => {
    const user = await first.createUser();
    const fields = ['first_name', 'last_name', 'phone', 'organization'] as const;
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        update(i % 2 === 0 ? first : second, { user_id: user.user_id, [fields[i % 4]!]: `${fields[i % 4]}-${i}` }),
      ),
    );
    assert.deepEqual(
      answers.map((answer) => answer.status),
      answers.map(() => 200),
    );
    const stored = (await second.store.users.findById(user.user_id))!.record;
    for (const [index, field] of fields.entries()) {
      const written = Array.from({ length: 5 }, (_, round) => `${field}-${index + 4 * round}`);
      assert.ok(written.includes(stored[field]), `${field} is "${stored[field]}"`);
    }
  });

  it('lets exactly one of two concurrent creates of one username through', async () => {
    for (let round = 0; round < 5; round++) {
      const username = `race-${round}@example.com`;
      const answers = await Promise.all(
        [first, second].map((service) => service.call('create_user', { ...first.admin, target_user: { username } })),
      );
      assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 409], `round ${round}`);
      assert.equal(answers.find((answer) => answer.status === 409)?.body.code, 'username_taken');
    }
  });

  it('refuses, on one instance, a key revoked through the other', async () => {
    const key = await first.createKey();
    assert.equal((await second.call('get_groups', key)).status, 200);
    assert.ok(await first.store.apiKeys.revoke(key.api_key, new Date().toISOString(), TEST_SETUP));
    assert.equal((await second.call('get_groups', key)).status, 401);
  });

  it('sees on one instance a user created through the other', async () => {
    const user = await first.createUser({ first_name: 'Shared' });
    const answer = await second.call('get_user', { ...first.admin, target_user: { user_id: user.user_id } });
    assert.equal(answer.body.user.first_name, 'Shared');
  });
});
