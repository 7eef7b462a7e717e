/**
 * The webhook operations on the wire: each answers in the contract's shapes,
 * the secret only where the contract shows it, webhooks_manage required, and
 * the directory's refusals as this API's errors. Delivery itself is tested
 * where it lives (server/directory/webhooks.integration.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../testing/service.js';

describe('the webhook operations', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({
      webhooks: { resolve: async (host) => (host === 'hooks.example.com' ? ['93.184.216.34'] : ['10.1.2.3']) },
    });
  });
  after(() => service.close());

  it('make, list, change, rotate, ping, list deliveries, deliver again and delete a webhook', async () => {
    const created = await service.callAsAdmin('create_webhook', {
      target_webhook: { url: 'https://hooks.example.com/in', event_types: ['user.*'], description: 'HR mirror', exclude_own_changes: true },
    });
    assert.equal(created.status, 200, created.text);
    const { webhook, secret } = created.body;
    assert.match(secret, /^whsec_/);
    assert.deepEqual([webhook.event_types, webhook.enabled, webhook.exclude_own_changes], [['user.*'], true, true]);

    const listed = await service.callAsAdmin('get_webhooks', {});
    assert.deepEqual(listed.body.webhooks, [webhook]);
    assert.ok(!listed.text.includes(secret), 'the secret is shown only when made');

    const disabled = await service.callAsAdmin('update_webhook', {
      target_webhook: { webhook_id: webhook.webhook_id.toUpperCase(), enabled: false },
    });
    assert.deepEqual([disabled.status, disabled.body.webhook.enabled], [200, false]);

    const rotated = await service.callAsAdmin('rotate_webhook_secret', { target_webhook: { webhook_id: webhook.webhook_id } });
    assert.equal(rotated.status, 200, rotated.text);
    assert.notEqual(rotated.body.secret, secret);

    const pinged = await service.callAsAdmin('ping_webhook', { target_webhook: { webhook_id: webhook.webhook_id } });
    assert.deepEqual(pinged.body, { queued: 1 });
    const deliveries = await service.callAsAdmin('get_webhook_deliveries', {
      target_webhook: { webhook_id: webhook.webhook_id },
      limit: 10,
    });
    assert.deepEqual(
      [deliveries.status, deliveries.body.deliveries],
      [200, []],
      'nothing attempted yet: the test service runs no delivery engine',
    );
    const again = await service.callAsAdmin('redeliver_webhook', {
      target_webhook: { webhook_id: webhook.webhook_id },
      since: '2000-01-01T00:00:00Z',
    });
    assert.equal(again.status, 200, again.text);

    const { events } = (await service.callAsAdmin('get_events', { resource_id: webhook.webhook_id })).body;
    assert.deepEqual(
      events.map((event: { type: string; data: { changed: string[] } }) => [event.type, event.data.changed]),
      [
        ['webhook.created', ['description', 'event_types', 'url']],
        ['webhook.disabled', ['enabled']],
        ['webhook.updated', ['secret']],
      ],
    );
    assert.ok(!JSON.stringify(events).includes(rotated.body.secret), 'no secret in an event');

    assert.deepEqual((await service.callAsAdmin('delete_webhook', { target_webhook: { webhook_id: webhook.webhook_id } })).body, {});
    const gone = await service.callAsAdmin('delete_webhook', { target_webhook: { webhook_id: webhook.webhook_id } });
    assert.deepEqual([gone.status, gone.body.code], [404, 'webhook_not_found']);
  });

  it('refuses an address inside the network with 400 invalid_webhook_url, naming the field', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'https://internal.example.com/hook']) {
      const refused = await service.callAsAdmin('create_webhook', { target_webhook: { url } });
      assert.equal(refused.status, 400, refused.text);
      assert.equal(refused.body.code, 'invalid_webhook_url');
      assert.equal(refused.body.errors[0].path, '/body/target_webhook/url');
    }
  });

  it('is for keys with webhooks_manage only', async () => {
    const viewer = await service.createKey({ permissions: ['events_view'] });
    const refused = await service.call('get_webhooks', { ...viewer });
    assert.deepEqual([refused.status, refused.body.code], [403, 'permission_denied']);
  });
});
