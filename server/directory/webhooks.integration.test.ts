/**
 * Webhooks on each store: their rules (addresses, secrets shown once,
 * rotation) and their deliveries, driven round by round with an injected clock
 * and a recording receiver: signed as Standard Webhooks says (checked with the
 * `standardwebhooks` package), filtered, retried on the schedule, Retry-After
 * honoured, disabled on 410 and after failing for days.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { createLogger } from '../logger.js';
import { openTestStore, TEST_STORE, type TestStore } from '../store/testing/open-test-store.js';
import { aUser } from '../testing/factories.js';
import { assertRefuses } from '../testing/refusals.js';
import { TEST_SETUP } from '../testing/test-setup.js';
import { deliveryEngine } from '../webhooks/delivery-engine.js';
import type { Sent } from '../webhooks/send.js';
import { createDirectory, type Directory } from './index.js';

/** Names this test resolves: a public address, and one that rebinds to loopback. */
const RESOLVED: Record<string, string[]> = { 'hooks.example.com': ['93.184.216.34'], 'rebind.example.com': ['127.0.0.1'] };
const HOUR = 3_600_000;

interface Received {
  url: string;
  headers: Record<string, string>;
  body: string;
}

describe(`webhooks (${TEST_STORE})`, () => {
  let opened: TestStore;
  let directory: Directory;
  let now: number;
  let received: Received[];
  /** What the receiver answers next, in order; a 200 once they are used up. */
  let answers: Sent[];
  /** Addresses whose receiver answers 500, always. */
  let down: Set<string>;
  const engine = () =>
    deliveryEngine({
      store: opened.store,
      requestsReceived: () => 0,
      turnsWithRequests: () => 0,
      logger: createLogger('silent'),
      schedule: [5_000, 300_000],
      disableAfterMs: 5 * 24 * HOUR,
      now: () => now,
      random: () => 0.5,
      send: async (url, headers, body) => {
        received.push({ url, headers, body });
        if (down.has(url)) return { status: 500, retryAfter: undefined, excerpt: 'down' };
        return answers.shift() ?? { status: 200, retryAfter: undefined, excerpt: 'ok' };
      },
    });

  before(async () => {
    opened = await openTestStore();
    directory = createDirectory(opened.store, {
      webhooks: { resolve: async (host) => RESOLVED[host] ?? [], now: () => now },
    });
  });
  after(() => opened.close());
  beforeEach(async () => {
    now = Date.now();
    received = [];
    answers = [];
    down = new Set();
    // Each test starts with no webhook enabled and nothing left to deliver.
    for (const webhook of await directory.webhooks.list()) await directory.webhooks.delete(webhook.webhook_id, TEST_SETUP);
    await engine().round();
  });

  it('refuses addresses inside the network, by name or as resolved, and shows a secret once', async () => {
    for (const url of [
      'http://169.254.169.254/latest/',
      'http://[::ffff:127.0.0.1]/',
      'https://rebind.example.com/hook',
      'http://u:p@hooks.example.com/',
    ]) {
      await assertRefuses(directory.webhooks.create({ url }, TEST_SETUP), { kind: 'invalid_webhook_url' }, url);
    }
    const { webhook, secret } = await directory.webhooks.create({ url: 'https://hooks.example.com/in', description: 'HR' }, TEST_SETUP);
    assert.match(secret, /^whsec_[A-Za-z0-9+/]+=*$/);
    assert.deepEqual([webhook.enabled, webhook.event_types, webhook.disabled_reason], [true, null, null]);
    assert.ok(!JSON.stringify(await directory.webhooks.list()).includes(secret), 'never listed');
    await assertRefuses(directory.webhooks.update(webhook.webhook_id, { url: 'https://rebind.example.com/' }, TEST_SETUP), {
      kind: 'invalid_webhook_url',
    });
    await assertRefuses(directory.webhooks.delete('0'.repeat(32), TEST_SETUP), { kind: 'not_found', entity: 'webhook' });
  });

  it('with no webhook enabled, moves past the log unread, dispatching nothing, and owes a webhook made later nothing before it', async () => {
    await aUser(directory);
    await aUser(directory);
    const dispatched: string[] = [];
    const counting = deliveryEngine({
      store: opened.store,
      requestsReceived: () => 0,
      turnsWithRequests: () => 0,
      logger: createLogger('silent'),
      schedule: [5_000],
      disableAfterMs: HOUR,
      now: () => now,
      send: () => Promise.reject(new Error('nothing is owed')),
      observe: { dispatched: (event) => dispatched.push(event.type), attempted: () => {} },
    });
    assert.equal(await counting.round(), 0);
    assert.deepEqual(dispatched, []);
    const [place] = await opened.inspection.rows('webhook_dispatch');
    const events = await opened.inspection.rows('audit_events');
    assert.equal(Number(place?.position), Math.max(...events.map((event) => Number(event.position))), 'the place is at the head');

    await directory.webhooks.create({ url: 'https://hooks.example.com/later', event_types: ['user.*'] }, TEST_SETUP);
    const user = await aUser(directory);
    await engine().round();
    assert.deepEqual(
      received.map((delivery) => (JSON.parse(delivery.body) as { data: { resource: { id: string } } }).data.resource.id),
      [user.record.user_id],
      'only the event after it',
    );
  });

  it('delivers each event it takes, signed as Standard Webhooks says, with the event as its body', async () => {
    const { webhook, secret } = await directory.webhooks.create(
      { url: 'https://hooks.example.com/in', event_types: ['user.*'] },
      TEST_SETUP,
    );
    const user = await aUser(directory);
    await directory.groups.create({ name: `Not taken ${now}` }, TEST_SETUP);
    await engine().round();
    assert.equal(received.length, 1, 'the user, not the group');
    const [delivery] = received as [Received];
    const verified = new StandardWebhook(secret).verify(delivery.body, delivery.headers) as {
      type: string;
      event_id: string;
      data: { resource: { id: string } };
    };
    assert.deepEqual([verified.type, verified.data.resource.id], ['user.created', user.record.user_id]);
    assert.equal(delivery.headers['webhook-id'], verified.event_id);
    assert.equal(delivery.headers['content-type'], 'application/json');
    assert.throws(() =>
      new StandardWebhook(`whsec_${Buffer.from('another secret, 32 bytes long!!').toString('base64')}`).verify(
        delivery.body,
        delivery.headers,
      ),
    );
    const [attempt] = await directory.webhooks.deliveries(webhook.webhook_id, 10);
    assert.deepEqual([attempt?.event_type, attempt?.attempt, attempt?.status, attempt?.response_excerpt], ['user.created', 1, 200, 'ok']);
  });

  it("leaves out its owner's own changes when asked", async () => {
    const owner = { ...TEST_SETUP, actor: 'sync-job-key', protocol: 'workspace' as const };
    await directory.webhooks.create(
      { url: 'https://hooks.example.com/in', event_types: ['user.created'], exclude_own_changes: true },
      owner,
    );
    await directory.users.create({ username: `own-${now}@example.com` }, owner);
    const other = await directory.users.create({ username: `other-${now}@example.com` }, { ...owner, actor: 'another-key' });
    await engine().round();
    assert.deepEqual(
      received.map((delivery) => (JSON.parse(delivery.body) as { data: { resource: { id: string } } }).data.resource.id),
      [other.record.user_id],
    );
  });

  it('tries again on the schedule, honours Retry-After, and gives up when the schedule is spent', async () => {
    const { webhook } = await directory.webhooks.create({ url: 'https://hooks.example.com/in', event_types: ['user.created'] }, TEST_SETUP);
    await aUser(directory);
    answers = [
      { status: 500, retryAfter: undefined, excerpt: 'down' },
      { status: 503, retryAfter: '60', excerpt: 'busy' },
      { error: 'connect ECONNREFUSED' },
    ];
    const delivering = engine();
    await delivering.round();
    assert.equal(received.length, 1);
    now += 4_999;
    await delivering.round();
    assert.equal(received.length, 1, 'not before 5 s');
    now += 1;
    await delivering.round();
    assert.equal(received.length, 2, 'again after 5 s');
    now += 59_999;
    await delivering.round();
    assert.equal(received.length, 2, 'Retry-After: 60 is waited for, not the schedule');
    now += 1;
    await delivering.round();
    assert.equal(received.length, 3, 'the third and last attempt');
    now += 24 * HOUR;
    await delivering.round();
    assert.equal(received.length, 3, 'the schedule is spent');
    const attempts = await directory.webhooks.deliveries(webhook.webhook_id, 10);
    assert.deepEqual(
      attempts.map((attempt) => [attempt.attempt, attempt.status, attempt.error, attempt.next_attempt_at !== null]),
      [
        [3, null, 'connect ECONNREFUSED', false],
        [2, 503, null, true],
        [1, 500, null, true],
      ],
    );
  });

  it('is disabled by a 410, and after failing every delivery for days, with a webhook.disabled event each time', async () => {
    const gone = await directory.webhooks.create({ url: 'https://hooks.example.com/gone', event_types: ['user.created'] }, TEST_SETUP);
    await aUser(directory);
    answers = [{ status: 410, retryAfter: undefined, excerpt: '' }];
    await engine().round();
    const [disabled] = (await directory.webhooks.list()).filter((webhook) => webhook.webhook_id === gone.webhook.webhook_id);
    assert.deepEqual([disabled?.enabled, disabled?.disabled_reason], [false, 'its receiver answered 410 Gone']);
    await directory.webhooks.delete(gone.webhook.webhook_id, TEST_SETUP);

    const failing = await directory.webhooks.create(
      { url: 'https://hooks.example.com/failing', event_types: ['user.created'] },
      TEST_SETUP,
    );
    down.add('https://hooks.example.com/failing');
    const delivering = engine();
    for (let day = 0; day <= 5; day++) {
      await aUser(directory);
      await delivering.round();
      now += 24 * HOUR;
    }
    const [failed] = (await directory.webhooks.list()).filter((webhook) => webhook.webhook_id === failing.webhook.webhook_id);
    assert.equal(failed?.enabled, false);
    assert.match(failed?.disabled_reason ?? '', /^every delivery failed since /);
    const { events } = await directory.events.follow({ types: ['webhook.disabled'], limit: 1000 });
    assert.deepEqual(
      events
        .filter((event) => [gone.webhook.webhook_id, failing.webhook.webhook_id].includes(event.data.resource.id))
        .map((event) => event.data.actor.type),
      ['service', 'service'],
    );
    // Enabled again, it starts afresh.
    const again = await directory.webhooks.update(failing.webhook.webhook_id, { enabled: true }, TEST_SETUP);
    assert.deepEqual([again.enabled, again.disabled_reason], [true, null]);
  });

  it('signs with both secrets for a day after a rotation, then with the new one alone', async () => {
    const { webhook, secret: old } = await directory.webhooks.create(
      { url: 'https://hooks.example.com/in', event_types: ['user.created'] },
      TEST_SETUP,
    );
    const { secret: fresh } = await directory.webhooks.rotate(webhook.webhook_id, TEST_SETUP);
    assert.notEqual(fresh, old);
    await aUser(directory);
    await engine().round();
    const [during] = received as [Received];
    assert.equal(during.headers['webhook-signature']!.split(' ').length, 2);
    for (const secret of [old, fresh]) new StandardWebhook(secret).verify(during.body, during.headers);
    now += 24 * HOUR + 1;
    received = [];
    await aUser(directory);
    await engine().round();
    const [later] = received as [Received];
    // Signed a day ahead of the real clock, which verify() checks the timestamp against: compared by signing alike.
    const signedAt = new Date(Number(later.headers['webhook-timestamp']) * 1000);
    assert.equal(later.headers['webhook-signature'], new StandardWebhook(fresh).sign(later.headers['webhook-id']!, signedAt, later.body));
  });

  it('pings, and delivers events again on request: one, or every one since a time', async () => {
    const { webhook } = await directory.webhooks.create({ url: 'https://hooks.example.com/in', event_types: ['user.created'] }, TEST_SETUP);
    const since = new Date(now).toISOString();
    const [first] = [await aUser(directory), await aUser(directory)];
    await engine().round();
    assert.equal(received.length, 2);
    const sent = JSON.parse(received[0]!.body) as { event_id: string };
    assert.equal(await directory.webhooks.redeliver(webhook.webhook_id, { eventId: sent.event_id }), 1);
    assert.equal(await directory.webhooks.redeliver(webhook.webhook_id, { since }), 2);
    await directory.webhooks.ping(webhook.webhook_id);
    await engine().round();
    const types = received.slice(2).map((delivery) => (JSON.parse(delivery.body) as { type: string }).type);
    assert.deepEqual(types.sort(), ['user.created', 'user.created', 'user.created', 'webhook.ping']);
    // Sent at once, in no set order: the same webhook-id as before, every time (receivers dedupe on it).
    const again = received.slice(2).filter((delivery) => (JSON.parse(delivery.body) as { event_id: string }).event_id === sent.event_id);
    assert.deepEqual(
      again.map((delivery) => delivery.headers['webhook-id']),
      [sent.event_id, sent.event_id],
    );
    assert.ok(first);
  });
});
