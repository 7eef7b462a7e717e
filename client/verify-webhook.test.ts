/** verifyWebhook against deliveries signed as the service signs them (server/webhooks/signature.ts), and against forgeries. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { signedHeaders } from '../server/webhooks/signature.js';
import { verifyWebhook, WebhookVerificationError } from './index.js';

const SECRET = `whsec_${Buffer.from('a secret of twenty-four bytes').toString('base64')}`;
const OTHER = `whsec_${Buffer.from('another secret, of a rotation').toString('base64')}`;
const event = {
  event_id: 'evt-1',
  type: 'user.updated',
  timestamp: new Date().toISOString(),
  data: { resource: { type: 'user', id: 'u', version: 2 }, changed: ['disabled'], actor: { type: 'scim', id: 'k' }, request_id: null },
};

describe('verifyWebhook', () => {
  it('gives the event of a delivery signed with the secret, by node headers or Fetch Headers, during a rotation too', () => {
    const body = JSON.stringify(event);
    const headers = signedHeaders({ current: SECRET, previous: null, previousUntil: null }, 'evt-1', new Date(), body);
    assert.deepEqual(verifyWebhook(SECRET, body, headers), event);
    assert.deepEqual(verifyWebhook(SECRET, Buffer.from(body), new Headers(headers)), event);
    const rotating = signedHeaders(
      { current: OTHER, previous: SECRET, previousUntil: new Date(Date.now() + 60_000).toISOString() },
      'evt-1',
      new Date(),
      body,
    );
    assert.deepEqual(verifyWebhook(SECRET, body, rotating), event, 'the old secret still verifies while the rotation overlaps');
    assert.deepEqual(verifyWebhook(OTHER, body, rotating), event);
  });

  it('refuses a changed body, another secret, a missing signature and an old timestamp', () => {
    const body = JSON.stringify(event);
    const headers = signedHeaders({ current: SECRET, previous: null, previousUntil: null }, 'evt-1', new Date(), body);
    assert.throws(() => verifyWebhook(SECRET, body.replace('disabled', 'password'), headers), WebhookVerificationError);
    assert.throws(() => verifyWebhook(OTHER, body, headers), WebhookVerificationError);
    assert.throws(() => verifyWebhook(SECRET, body, { ...headers, 'webhook-signature': undefined }), WebhookVerificationError);
    const old = signedHeaders({ current: SECRET, previous: null, previousUntil: null }, 'evt-1', new Date(Date.now() - 10 * 60_000), body);
    assert.throws(() => verifyWebhook(SECRET, body, old), WebhookVerificationError);
  });
});
