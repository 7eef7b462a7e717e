/**
 * The Standard Webhooks 1.0 headers of a delivery, signed by the
 * `standardwebhooks` package (the specification's own library), not by hand:
 * `webhook-id`, `webhook-timestamp` and `webhook-signature` (`v1,<base64 HMAC-
 * SHA256 of id.timestamp.body>`), with a second signature by the previous
 * secret while a rotation's overlap lasts.
 */
import { Webhook } from 'standardwebhooks';
import type { WebhookSecrets } from '../store/records.js';

export function signedHeaders(secrets: WebhookSecrets, id: string, at: Date, body: string): Record<string, string> {
  const signing = [secrets.current];
  if (secrets.previous && secrets.previousUntil && Date.parse(secrets.previousUntil) > at.getTime()) signing.push(secrets.previous);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signing.map((secret) => new Webhook(secret).sign(id, at, body)).join(' '),
    'content-type': 'application/json',
  };
}
