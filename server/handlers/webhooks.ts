/** Webhooks: createWebhook, getWebhooks, updateWebhook, deleteWebhook, rotateWebhookSecret, getWebhookDeliveries, redeliverWebhook, pingWebhook. */
import type { Handlers, Services } from './types.js';

export function webhookHandlers({
  directory,
}: Services): Pick<
  Handlers,
  | 'createWebhook'
  | 'getWebhooks'
  | 'updateWebhook'
  | 'deleteWebhook'
  | 'rotateWebhookSecret'
  | 'getWebhookDeliveries'
  | 'redeliverWebhook'
  | 'pingWebhook'
> {
  const webhooks = directory.webhooks;
  return {
    async createWebhook({ target_webhook }, { author }) {
      return webhooks.create(target_webhook, author);
    },
    async getWebhooks() {
      return { webhooks: await webhooks.list() };
    },
    async updateWebhook({ target_webhook }, { author }) {
      const { webhook_id, ...changes } = target_webhook;
      return { webhook: await webhooks.update(webhook_id, changes, author) };
    },
    async deleteWebhook({ target_webhook }, { author }) {
      await webhooks.delete(target_webhook.webhook_id, author);
      return {};
    },
    async rotateWebhookSecret({ target_webhook }, { author }) {
      return webhooks.rotate(target_webhook.webhook_id, author);
    },
    async getWebhookDeliveries({ target_webhook, limit }) {
      return { deliveries: await webhooks.deliveries(target_webhook.webhook_id, limit ?? 50) };
    },
    async redeliverWebhook({ target_webhook, event_id, since }) {
      const which = event_id !== undefined ? { eventId: event_id } : { since: since ?? new Date(0).toISOString() };
      return { queued: await webhooks.redeliver(target_webhook.webhook_id, which) };
    },
    async pingWebhook({ target_webhook }) {
      await webhooks.ping(target_webhook.webhook_id);
      return { queued: 1 };
    },
  };
}
