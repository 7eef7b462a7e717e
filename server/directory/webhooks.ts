/**
 * Webhooks: receivers of the change events (docs/events.md). Their rules live
 * here: an address that reaches no network of the service's own (checked on
 * the name and on what it resolves to; the delivery engine checks again on
 * each connection), a secret made here and shown once, a rotation that lets
 * the old secret sign beside the new one for 24 hours.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import type { ChangeAuthor, EventTypeFilter, Webhook, WebhookAttempt, WebhookChanges } from '../store/records.js';
import type { Store } from '../store/repositories.js';
import { hostOf, resolvedRefusal, urlRefusal } from '../webhooks/address-rules.js';
import { refuse } from './errors.js';
import { canonicalId, newId } from './ids.js';

/** How long the old secret still signs after a rotation. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;

export interface NewWebhook {
  url: string;
  event_types?: EventTypeFilter[] | null;
  description?: string;
  exclude_own_changes?: boolean;
}

export interface WebhookDirectoryOptions {
  /** WEBHOOK_ALLOW_PRIVATE: deliver to loopback and private addresses too (development and tests). */
  allowPrivate?: boolean;
  /** Every address a host name resolves to. */
  resolve?: (host: string) => Promise<string[]>;
  now?: () => number;
}

/** A new signing secret, as Standard Webhooks writes them: `whsec_` and 24 random bytes in base64. */
const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

const resolveAll = async (host: string) => (await lookup(host, { all: true })).map((entry) => entry.address);

const notFound = (): never => refuse({ kind: 'not_found', entity: 'webhook' });

export function webhookDirectory(
  store: Store,
  { allowPrivate = false, resolve = resolveAll, now = Date.now }: WebhookDirectoryOptions = {},
) {
  /** The URL as given, or a refusal saying why the service will not deliver there. */
  async function acceptedUrl(url: string): Promise<string> {
    const onItsFace = urlRefusal(url, { allowPrivate });
    if (onItsFace) return refuse({ kind: 'invalid_webhook_url', reason: onItsFace });
    const host = hostOf(new URL(url));
    let addresses: string[];
    try {
      addresses = await resolve(host);
    } catch {
      return refuse({ kind: 'invalid_webhook_url', reason: `the host ${host} does not resolve` });
    }
    const resolved = resolvedRefusal(host, addresses, { allowPrivate });
    return resolved ? refuse({ kind: 'invalid_webhook_url', reason: resolved }) : url;
  }

  return {
    /** A new webhook and its secret, shown this once; `by.actor` (the key) is its owner. */
    async create(webhook: NewWebhook, by: ChangeAuthor): Promise<{ webhook: Webhook; secret: string }> {
      const url = await acceptedUrl(webhook.url);
      const secret = newSecret();
      const created = await store.webhooks.create(
        {
          webhook_id: newId(),
          url,
          event_types: webhook.event_types ?? null,
          description: webhook.description ?? '',
          exclude_own_changes: webhook.exclude_own_changes ?? false,
          owner_api_key: by.actor,
          secret,
          created: new Date(now()).toISOString(),
        },
        by,
      );
      return { webhook: created, secret };
    },

    list: (): Promise<Webhook[]> => store.webhooks.list(),

    async update(webhookId: string, changes: WebhookChanges, by: ChangeAuthor): Promise<Webhook> {
      const accepted = changes.url === undefined ? changes : { ...changes, url: await acceptedUrl(changes.url) };
      return (await store.webhooks.update(canonicalId(webhookId), accepted, by)) ?? notFound();
    },

    async delete(webhookId: string, by: ChangeAuthor): Promise<void> {
      if (!(await store.webhooks.delete(canonicalId(webhookId), by))) notFound();
    },

    /** A new secret, shown this once; the old one signs beside it for ROTATION_OVERLAP_MS. */
    async rotate(webhookId: string, by: ChangeAuthor): Promise<{ webhook: Webhook; secret: string }> {
      const id = canonicalId(webhookId);
      const stored = (await store.webhooks.find(id)) ?? notFound();
      const secret = newSecret();
      const previousUntil = new Date(now() + ROTATION_OVERLAP_MS).toISOString();
      const webhook =
        (await store.webhooks.rotate(id, { current: secret, previous: stored.secrets.current, previousUntil }, by)) ?? notFound();
      return { webhook, secret };
    },

    async deliveries(webhookId: string, limit: number): Promise<WebhookAttempt[]> {
      const id = canonicalId(webhookId);
      if (!(await store.webhooks.find(id))) notFound();
      return store.webhooks.attempts(id, limit);
    },

    /** Queues events to be delivered again: one, or every one it takes since a time; gives how many. */
    async redeliver(webhookId: string, which: { eventId: string } | { since: string }): Promise<number> {
      const id = canonicalId(webhookId);
      if (!(await store.webhooks.find(id))) notFound();
      return store.webhooks.redeliver(id, which, new Date(now()).toISOString());
    },

    /** Queues a `webhook.ping`, signed as any delivery; its outcome is among the deliveries. */
    async ping(webhookId: string): Promise<void> {
      const id = canonicalId(webhookId);
      if (!(await store.webhooks.find(id))) notFound();
      const eventId = randomUUID();
      const timestamp = new Date(now()).toISOString();
      const body = JSON.stringify({
        event_id: eventId,
        type: 'webhook.ping',
        timestamp,
        data: { resource: { type: 'webhook', id, version: null }, changed: [], actor: { type: 'service', id: null }, request_id: null },
      });
      await store.webhooks.queuePayload(id, { eventId, eventType: 'webhook.ping', body }, timestamp);
    },
  };
}

export type WebhookDirectory = ReturnType<typeof webhookDirectory>;
