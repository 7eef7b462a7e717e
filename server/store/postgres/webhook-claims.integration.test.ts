/**
 * What only PostgreSQL has to get right about webhook deliveries: several
 * instances deliver at once, each claiming what is due with FOR UPDATE SKIP
 * LOCKED and a lease, so that each delivery goes out once while its claimer
 * lives, and is taken over by another when the lease ends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createLogger } from '../../logger.js';
import { TEST_SETUP } from '../../testing/test-setup.js';
import { createTestDatabase, type TestDatabase } from '../../testing/database.js';
import { deliveryEngine } from '../../webhooks/delivery-engine.js';
import type { NewWebhookRecord } from '../records.js';
import type { Store } from '../repositories.js';
import { newUserRecord, openInspectedStore } from '../testing/open-test-store.js';

const WEBHOOK: NewWebhookRecord = {
  webhook_id: 'd'.repeat(32),
  url: 'https://hooks.example.com/in',
  event_types: ['user.created'],
  description: '',
  exclude_own_changes: false,
  owner_api_key: 'k',
  secret: `whsec_${Buffer.from('a secret of twenty-four bytes').toString('base64')}`,
  created: new Date().toISOString(),
};

describe('PostgreSQL: webhook deliveries shared by instances', () => {
  let database: TestDatabase;
  let first: Store;
  let second: Store;
  before(async () => {
    assert.ok(process.env.TEST_POSTGRES_URL, 'run through scripts/with-postgres.ts (the PostgreSQL pass of npm run test:integration)');
    database = await createTestDatabase();
    first = (await openInspectedStore(database.url)).store;
    second = (await openInspectedStore(database.url)).store;
  });
  after(async () => {
    await first?.close();
    await second?.close();
    await database?.drop();
  });

  it("delivers each event once with two instances claiming at once, and a dead claimer's deliveries after its lease", async () => {
    await first.webhooks.create(WEBHOOK, TEST_SETUP);
    for (let count = 0; count < 40; count++) await first.users.create(newUserRecord(), TEST_SETUP);
    const sent: string[] = [];
    const engineOn = (store: Store) =>
      deliveryEngine({
        store,
        requestsReceived: () => 0,
        turnsWithRequests: () => 0,
        logger: createLogger('silent'),
        schedule: [5_000],
        disableAfterMs: 86_400_000,
        send: async (_url, headers) => {
          sent.push(headers['webhook-id']!);
          // A slow receiver, so that both instances claim while the other's claims are open.
          await new Promise((resolve) => setTimeout(resolve, 5));
          return { status: 200, retryAfter: undefined, excerpt: '' };
        },
      });
    const [one, two] = [engineOn(first), engineOn(second)];
    while ((await Promise.all([one.round(), two.round()])).some((claimed) => claimed > 0));
    assert.equal(sent.length, 40, 'every event delivered');
    assert.equal(new Set(sent).size, 40, 'none twice');

    // An instance that claimed and died: its claim stands until the lease ends, then another sends.
    await first.users.create(newUserRecord(), TEST_SETUP);
    let now = Date.now();
    const { claimed } = await first.webhooks.turn({
      now: new Date(now).toISOString(),
      settle: [],
      dispatchLimit: 100,
      claim: { leaseUntil: new Date(now + 60_000).toISOString(), room: 10, perWebhook: 10, inHand: new Map() },
    });
    assert.equal(claimed.length, 1);
    const survivor = deliveryEngine({
      store: second,
      requestsReceived: () => 0,
      turnsWithRequests: () => 0,
      logger: createLogger('silent'),
      schedule: [5_000],
      disableAfterMs: 86_400_000,
      now: () => now,
      send: async (_url, headers) => {
        sent.push(headers['webhook-id']!);
        return { status: 200, retryAfter: undefined, excerpt: '' };
      },
    });
    assert.equal(await survivor.round(), 0, 'not while the lease lasts');
    now += 60_001;
    assert.equal(await survivor.round(), 1, 'taken over once the lease ended');
    assert.equal(sent.at(-1), claimed[0]!.eventId);
  });

  it('writes and locks no row on a turn with nothing new in the log and nothing due', async () => {
    // A database of its own: the turns below must find the log as this test leaves it.
    const own = await createTestDatabase();
    const [one, two] = [(await openInspectedStore(own.url)).store, (await openInspectedStore(own.url)).store];
    // Every version of the rows a turn may write or lock, with the transactions that made it (xmin)
    // and that last locked or deleted it (xmax): an idle instance turns 20 times a second, and a row
    // lock at each turn would spend a transaction id and write to the log every time. (The cluster's
    // next transaction id would say so too, but the other test files move it meanwhile.)
    const client = new pg.Client({ connectionString: own.url });
    await client.connect();
    const rowVersions = async () =>
      (
        await client.query<{ version: string }>(
          `select 'dispatch ' || xmin || ' ' || xmax as version from webhook_dispatch
           union all select 'webhook ' || xmin || ' ' || xmax from webhooks
           union all select 'delivery ' || xmin || ' ' || xmax from webhook_deliveries order by 1`,
        )
      ).rows.map((row) => row.version);
    try {
      await one.webhooks.create({ ...WEBHOOK, webhook_id: 'e'.repeat(32) }, TEST_SETUP);
      const idleTurn = (store: Store) =>
        store.webhooks.turn({
          now: new Date().toISOString(),
          settle: [],
          dispatchLimit: 500,
          claim: { leaseUntil: new Date(Date.now() + 60_000).toISOString(), room: 10, perWebhook: 10, inHand: new Map() },
        });
      // The webhook's own event (webhook.created) is dispatched and claimed first.
      while ((await idleTurn(one)).claimed.length > 0 || (await idleTurn(two)).claimed.length > 0);
      const before = await rowVersions();
      assert.ok(before.some((version) => version.startsWith('dispatch ')));
      for (let turn = 0; turn < 10; turn++) assert.deepEqual(await idleTurn(turn % 2 ? one : two), { dispatched: [], claimed: [] });
      assert.deepEqual(await rowVersions(), before);
      // A new event is still dispatched, by one instance.
      await one.users.create(newUserRecord(), TEST_SETUP);
      const [first, second] = await Promise.all([idleTurn(one), idleTurn(two)]);
      assert.equal(first.dispatched.length + second.dispatched.length, 1);
    } finally {
      await client.end();
      await one.close();
      await two.close();
      await own.drop();
    }
  });
});
