/**
 * Checking a webhook delivery as a receiver: the `standardwebhooks` package's
 * own verification (the signature over id, timestamp and body, any of the
 * signatures a rotation sends, a timestamp within five minutes), not a copy of
 * it. Give it the body exactly as it came, before any JSON parsing.
 *
 *     const event = verifyWebhook(process.env.WEBHOOK_SECRET, rawBody, request.headers);
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { ChangeEvent } from './each-event.js';

export { WebhookVerificationError };

/** The event a delivery carries, once its signature is checked; throws WebhookVerificationError when it is not ours or too old. */
export function verifyWebhook(
  secret: string,
  rawBody: string | Buffer,
  headers: Record<string, string | string[] | undefined> | Headers,
): ChangeEvent {
  const read = (name: string) => {
    const value = headers instanceof Headers ? headers.get(name) : headers[name];
    return Array.isArray(value) ? value[0] : (value ?? undefined);
  };
  const signed = {
    'webhook-id': read('webhook-id') ?? '',
    'webhook-timestamp': read('webhook-timestamp') ?? '',
    'webhook-signature': read('webhook-signature') ?? '',
  };
  return new Webhook(secret).verify(rawBody, signed) as ChangeEvent;
}
