/**
 * What the gate sees stored in a deployment (target.ts, connectDeployment): it must change with
 * every change the deployment makes, and only then, at the cost of a few answers whatever the
 * deployment's size. On SQLite: one test stores a user behind the service's back, in its file.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { startTestService, type TestService } from '../server/testing/service.js';
import { connectDeployment, type GateTarget } from './target.js';

describe("the gate's snapshot of a deployment", () => {
  let service: TestService;
  let deployment: GateTarget;
  before(async () => {
    // A webhook's address resolves to a public one, with no lookup leaving the machine.
    service = await startTestService({ webhooks: { resolve: async () => ['93.184.216.34'] } });
    deployment = await connectDeployment({ baseUrl: service.baseUrl, admin: service.admin });
  });
  after(() => service.close());

  /** A request that must succeed. */
  const succeeded = async (answer: Promise<{ status: number; text: string }>) => {
    const { status, text } = await answer;
    assert.equal(status, 200, text);
  };

  /** Whether `change` changes the snapshot; and, once it has, that nothing else does. */
  async function changes(change: () => Promise<unknown>): Promise<boolean> {
    const before = await deployment.snapshot();
    await change();
    const after = await deployment.snapshot();
    assert.equal(await deployment.snapshot(), after, 'a snapshot taken again, with nothing changed in between');
    return after !== before;
  }

  it('stays put while nothing is stored: a read, a refused request', async () => {
    await service.createUser();
    assert.equal(await changes(async () => {}), false);
    assert.equal(await changes(() => service.callAsAdmin('get_users', { page_size: 5 })), false, 'a read');
    assert.equal(
      await changes(() => service.sendAsAdmin('update_user', { target_user: { user_id: 'x', locked: 'no' } })),
      false,
      'a refused request',
    );
  });

  it('changes with a user, a group, a membership, a key and a webhook, as each is made or changed', async () => {
    const user = await service.createUser();
    assert.equal(await changes(() => service.createUser()), true, 'a user created');
    assert.equal(
      await changes(() =>
        succeeded(service.callAsAdmin('update_user', { target_user: { user_id: user.user_id, organization: 'Research' } })),
      ),
      true,
      'a user changed',
    );
    const group = await service.createGroup();
    assert.equal(
      await changes(() =>
        succeeded(
          service.callAsAdmin('add_user_group', { target_user: { user_id: user.user_id }, target_group: { group_id: group.group_id } }),
        ),
      ),
      true,
      'a member added',
    );
    assert.equal(await changes(() => service.createKey({ permissions: [] })), true, 'a key made');
    assert.equal(
      await changes(() =>
        succeeded(
          service.callAsAdmin('create_webhook', { target_webhook: { url: 'https://hooks.example.com/users', event_types: ['user.*'] } }),
        ),
      ),
      true,
      'a webhook made',
    );
  });

  it('changes with a user stored behind the trail, by the count of users', async () => {
    const path = service.databaseUrl.replace(/^sqlite:/, '');
    assert.equal(
      await changes(async () => {
        const database = new BetterSqlite3(path);
        try {
          database
            .prepare('insert into users (user_id, username, created) values (?, ?, ?)')
            .run(
              randomBytes(16).toString('hex'),
              `behind-the-trail-${randomBytes(4).toString('hex')}@example.com`,
              new Date().toISOString(),
            );
        } finally {
          database.close();
        }
      }),
      true,
    );
  });
});
