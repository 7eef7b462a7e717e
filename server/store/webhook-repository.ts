/**
 * Webhooks and their deliveries on Kysely, for SQLite and PostgreSQL alike.
 * The deliveries are made by following the change log (audit_events) from the
 * place webhook_dispatch holds, in the same transaction that moves it: an
 * event committed is turned into its deliveries once, whatever crashes. A
 * delivery's body is built from its event's row when it is sent.
 */
import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { AuditTrail } from './audit-repository.js';
import { placedEvent } from './audit-repository.js';
import type { DatabaseTraits, Db } from './database-traits.js';
import { EVENT_TYPES } from './event-types.js';
import type {
  AttemptOutcome,
  ChangeAuthor,
  ChangeEvent,
  DueDelivery,
  EventTypeFilter,
  NewWebhookRecord,
  PlacedChangeEvent,
  StoredWebhook,
  Webhook,
  WebhookAttempt,
  WebhookChanges,
  WebhookSecrets,
} from './records.js';
import type { WebhookRepository } from './repositories.js';
import type { Database, WebhookDeliveriesTable, WebhooksTable } from './schema.js';

type Row = Selectable<WebhooksTable>;

const asWebhook = (row: Row): Webhook => ({
  webhook_id: row.webhook_id,
  url: row.url,
  event_types: row.event_types === null ? null : (JSON.parse(row.event_types) as EventTypeFilter[]),
  description: row.description,
  enabled: Boolean(row.enabled),
  exclude_own_changes: Boolean(row.exclude_own_changes),
  created: row.created,
  disabled_reason: row.disabled_reason,
});

const secretsOf = (row: Row): WebhookSecrets => ({
  current: row.secret,
  previous: row.previous_secret,
  previousUntil: row.previous_secret_until,
});

/** The event types a webhook's filters take (`user.*` is every type of users); every type without filters. */
function takes(filters: readonly string[] | null): Set<string> {
  if (filters === null) return new Set(EVENT_TYPES);
  return new Set(
    EVENT_TYPES.filter((type) =>
      filters.some((filter) => filter === type || (filter.endsWith('.*') && type.startsWith(filter.slice(0, -1)))),
    ),
  );
}

/** Whether an event was caused by a key: the API key or SCIM token that made the change. */
const causedBy = (event: ChangeEvent, apiKey: string) =>
  (event.data.actor.type === 'api_key' || event.data.actor.type === 'scim') && event.data.actor.id === apiKey;

/** A new delivery of a logged event to a webhook, due at once. */
const deliveryOf = (webhookId: string, { position, event }: PlacedChangeEvent, now: string): Insertable<WebhookDeliveriesTable> => ({
  delivery_id: uuidv7(),
  webhook_id: webhookId,
  event_id: event.event_id,
  event_type: event.type,
  event_position: position,
  payload: null,
  attempts: 0,
  state: 'pending',
  next_attempt_at: now,
  created: now,
});

/** Inserts deliveries a batch at a time (a statement's parameters are bounded). */
async function insertDeliveries(db: Db, deliveries: Insertable<WebhookDeliveriesTable>[]): Promise<void> {
  for (let start = 0; start < deliveries.length; start += 200) {
    await db
      .insertInto('webhook_deliveries')
      .values(deliveries.slice(start, start + 200))
      .execute();
  }
}

export class KyselyWebhookRepository implements WebhookRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly traits: DatabaseTraits,
    private readonly audit: AuditTrail,
  ) {}

  async create(webhook: NewWebhookRecord, by: ChangeAuthor): Promise<Webhook> {
    return this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('webhooks')
        .values({
          ...webhook,
          event_types: webhook.event_types === null ? null : JSON.stringify(webhook.event_types),
          enabled: this.traits.bool(true),
          exclude_own_changes: this.traits.bool(webhook.exclude_own_changes),
        })
        .execute();
      const changedFields = [
        'url',
        ...(webhook.event_types ? ['event_types'] : []),
        ...(webhook.description ? ['description'] : []),
      ].sort();
      await this.audit.record(trx, by, { operation: 'createWebhook', targetWebhookId: webhook.webhook_id, changedFields });
      return asWebhook(await this.#row(trx, webhook.webhook_id));
    });
  }

  async list(): Promise<Webhook[]> {
    return (await this.db.selectFrom('webhooks').selectAll().orderBy('created').orderBy('webhook_id').execute()).map(asWebhook);
  }

  async find(webhookId: string): Promise<StoredWebhook | undefined> {
    const row = await this.db.selectFrom('webhooks').selectAll().where('webhook_id', '=', webhookId).executeTakeFirst();
    return row && { record: asWebhook(row), ownerApiKey: row.owner_api_key, secrets: secretsOf(row), failingSince: row.failing_since };
  }

  async update(webhookId: string, changes: WebhookChanges, by: ChangeAuthor): Promise<Webhook | undefined> {
    return this.db.transaction().execute(async (trx) => {
      let read = trx.selectFrom('webhooks').selectAll().where('webhook_id', '=', webhookId);
      // One change at a time (SQLite has one writer already).
      if (this.traits.kind === 'postgres') read = read.forUpdate();
      const row = await read.executeTakeFirst();
      if (!row) return undefined;
      const before = asWebhook(row);
      const changed = (Object.keys(changes) as (keyof WebhookChanges)[]).filter(
        (field) => changes[field] !== undefined && JSON.stringify(changes[field]) !== JSON.stringify(before[field]),
      );
      if (changed.length === 0) return before;
      const values = {
        ...(changes.url !== undefined ? { url: changes.url } : {}),
        ...(changes.event_types !== undefined
          ? { event_types: changes.event_types === null ? null : JSON.stringify(changes.event_types) }
          : {}),
        ...(changes.description !== undefined ? { description: changes.description } : {}),
        ...(changes.exclude_own_changes !== undefined ? { exclude_own_changes: this.traits.bool(changes.exclude_own_changes) } : {}),
        ...(changes.enabled !== undefined ? { enabled: this.traits.bool(changes.enabled) } : {}),
        // Enabled again: a fresh start, without the old failures.
        ...(changes.enabled === true ? { disabled_reason: null, failing_since: null } : {}),
      };
      await trx.updateTable('webhooks').set(values).where('webhook_id', '=', webhookId).execute();
      const operation = changes.enabled === false && before.enabled ? 'disableWebhook' : 'updateWebhook';
      await this.audit.record(trx, by, { operation, targetWebhookId: webhookId, changedFields: [...changed].sort() });
      return asWebhook(await this.#row(trx, webhookId));
    });
  }

  async rotate(webhookId: string, secrets: WebhookSecrets, by: ChangeAuthor): Promise<Webhook | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('webhooks')
        .set({ secret: secrets.current, previous_secret: secrets.previous, previous_secret_until: secrets.previousUntil })
        .where('webhook_id', '=', webhookId)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return undefined;
      await this.audit.record(trx, by, { operation: 'updateWebhook', targetWebhookId: webhookId, changedFields: ['secret'] });
      return asWebhook(await this.#row(trx, webhookId));
    });
  }

  async delete(webhookId: string, by: ChangeAuthor): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // The attempts go with the deliveries, and the deliveries with the webhook (ON DELETE CASCADE).
      const result = await trx.deleteFrom('webhooks').where('webhook_id', '=', webhookId).executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      await this.audit.record(trx, by, { operation: 'deleteWebhook', targetWebhookId: webhookId });
      return true;
    });
  }

  async disable(webhookId: string, reason: string, by: ChangeAuthor): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('webhooks')
        .set({ enabled: this.traits.bool(false), disabled_reason: reason })
        .where('webhook_id', '=', webhookId)
        .where('enabled', '=', this.traits.bool(true))
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      await this.audit.record(trx, by, { operation: 'disableWebhook', targetWebhookId: webhookId, changedFields: ['enabled'] });
      return true;
    });
  }

  async dispatch(now: string, limit: number): Promise<ChangeEvent[]> {
    return this.db.transaction().execute(async (trx) => {
      // One dispatcher at a time: the others wait here, then read on from where it stopped.
      let place = trx.selectFrom('webhook_dispatch').select('position').where('id', '=', 1);
      if (this.traits.kind === 'postgres') place = place.forUpdate();
      const from = Number((await place.executeTakeFirstOrThrow()).position);
      // Up to the head read first: every place up to it is final (audit-repository.ts).
      const head = Number(
        (
          await trx
            .selectFrom('audit_events')
            .select(sql<number | string | null>`max(position)`.as('head'))
            .executeTakeFirst()
        )?.head ?? 0,
      );
      if (head <= from) return [];
      const rows = await trx
        .selectFrom('audit_events')
        .selectAll()
        .where('position', '>', from)
        .where('position', '<=', head)
        .orderBy('position')
        .limit(limit)
        .execute();
      const events = rows.map(placedEvent);
      const webhooks = await trx.selectFrom('webhooks').selectAll().where('enabled', '=', this.traits.bool(true)).execute();
      const deliveries = [];
      for (const webhook of webhooks) {
        const taken = takes(asWebhook(webhook).event_types);
        for (const { position, event } of events) {
          if (!taken.has(event.type)) continue;
          if (webhook.exclude_own_changes && causedBy(event, webhook.owner_api_key)) continue;
          deliveries.push(deliveryOf(webhook.webhook_id, { position, event }, now));
        }
      }
      await insertDeliveries(trx, deliveries);
      const to = events.at(-1)?.position ?? from;
      await trx.updateTable('webhook_dispatch').set({ position: to }).where('id', '=', 1).execute();
      return events.map((placed) => placed.event);
    });
  }

  async claim(now: string, leaseUntil: string, limit: number, busyWebhooks: readonly string[]): Promise<DueDelivery[]> {
    const claimed = await this.db.transaction().execute(async (trx) => {
      let due = trx
        .selectFrom('webhook_deliveries')
        .select('delivery_id')
        .where('state', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
        // A disabled webhook's deliveries wait until it is enabled again.
        .where('webhook_id', 'in', trx.selectFrom('webhooks').select('webhook_id').where('enabled', '=', this.traits.bool(true)))
        .orderBy('next_attempt_at')
        .limit(limit);
      if (busyWebhooks.length > 0) due = due.where('webhook_id', 'not in', [...busyWebhooks]);
      // Several instances claim at once: each skips what another has locked.
      if (this.traits.kind === 'postgres') due = due.forUpdate().skipLocked();
      const ids = (await due.execute()).map((row) => row.delivery_id);
      if (ids.length === 0) return [];
      await trx.updateTable('webhook_deliveries').set({ claimed_until: leaseUntil }).where('delivery_id', 'in', ids).execute();
      return trx.selectFrom('webhook_deliveries').selectAll().where('delivery_id', 'in', ids).orderBy('next_attempt_at').execute();
    });
    if (claimed.length === 0) return [];
    const webhooks = new Map(
      (
        await this.db
          .selectFrom('webhooks')
          .selectAll()
          .where('webhook_id', 'in', [...new Set(claimed.map((delivery) => delivery.webhook_id))])
          .execute()
      ).map((row) => [row.webhook_id, row]),
    );
    const positions = claimed.flatMap((delivery) => (delivery.event_position === null ? [] : [Number(delivery.event_position)]));
    const events = new Map(
      (positions.length === 0 ? [] : await this.db.selectFrom('audit_events').selectAll().where('position', 'in', positions).execute()).map(
        (row) => [Number(row.position), placedEvent(row).event],
      ),
    );
    return claimed.flatMap((delivery) => {
      const webhook = webhooks.get(delivery.webhook_id);
      if (!webhook) return [];
      const event = delivery.event_position === null ? undefined : events.get(Number(delivery.event_position));
      return [
        {
          deliveryId: delivery.delivery_id,
          webhookId: delivery.webhook_id,
          url: webhook.url,
          secrets: secretsOf(webhook),
          attempts: delivery.attempts,
          eventId: delivery.event_id,
          eventType: delivery.event_type,
          body: delivery.payload ?? (event ? JSON.stringify(event) : undefined),
        },
      ];
    });
  }

  async settle({ delivery, attemptedAt, durationMs, status, error, responseExcerpt, result }: AttemptOutcome): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const attempt = delivery.attempts + 1;
      const next = result.kind === 'retry' ? result.at : null;
      await trx
        .insertInto('webhook_attempts')
        .values({
          delivery_id: delivery.deliveryId,
          webhook_id: delivery.webhookId,
          event_id: delivery.eventId,
          event_type: delivery.eventType,
          attempt,
          attempted_at: attemptedAt,
          duration_ms: Math.round(durationMs),
          status,
          error,
          response_excerpt: responseExcerpt,
          next_attempt_at: next,
        })
        .execute();
      await trx
        .updateTable('webhook_deliveries')
        .set({
          attempts: attempt,
          state: result.kind === 'delivered' ? 'delivered' : result.kind === 'retry' ? 'pending' : 'failed',
          claimed_until: null,
          ...(next ? { next_attempt_at: next } : {}),
        })
        .where('delivery_id', '=', delivery.deliveryId)
        .execute();
      const failing = result.kind === 'delivered' ? null : sql<string>`coalesce(failing_since, ${attemptedAt})`;
      await trx.updateTable('webhooks').set({ failing_since: failing }).where('webhook_id', '=', delivery.webhookId).execute();
    });
  }

  async redeliver(webhookId: string, which: { eventId: string } | { since: string }, now: string): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const webhook = await trx.selectFrom('webhooks').selectAll().where('webhook_id', '=', webhookId).executeTakeFirst();
      if (!webhook) return 0;
      let query = trx.selectFrom('audit_events').selectAll().orderBy('position');
      query = 'eventId' in which ? query.where('event_id', '=', which.eventId) : query.where('time', '>=', which.since);
      const taken = takes(asWebhook(webhook).event_types);
      const events = (await query.limit(10_000).execute()).map(placedEvent).filter(({ event }) => taken.has(event.type));
      await insertDeliveries(
        trx,
        events.map((placed) => deliveryOf(webhookId, placed, now)),
      );
      return events.length;
    });
  }

  async queuePayload(
    webhookId: string,
    { eventId, eventType, body }: { eventId: string; eventType: string; body: string },
    now: string,
  ): Promise<void> {
    await this.db
      .insertInto('webhook_deliveries')
      .values({
        delivery_id: uuidv7(),
        webhook_id: webhookId,
        event_id: eventId,
        event_type: eventType,
        event_position: null,
        payload: body,
        attempts: 0,
        state: 'pending',
        next_attempt_at: now,
        created: now,
      })
      .execute();
  }

  async attempts(webhookId: string, limit: number): Promise<WebhookAttempt[]> {
    const rows = await this.db
      .selectFrom('webhook_attempts')
      .select([
        'event_id',
        'event_type',
        'attempt',
        'attempted_at',
        'duration_ms',
        'status',
        'error',
        'response_excerpt',
        'next_attempt_at',
      ])
      .where('webhook_id', '=', webhookId)
      .orderBy('attempted_at', 'desc')
      .limit(limit)
      .execute();
    return rows;
  }

  async oldestPending(): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('webhook_deliveries')
      .select(sql<string | null>`min(next_attempt_at)`.as('oldest'))
      .where('state', '=', 'pending')
      .executeTakeFirst();
    return row?.oldest ?? undefined;
  }

  async #row(db: Db, webhookId: string): Promise<Row> {
    return db.selectFrom('webhooks').selectAll().where('webhook_id', '=', webhookId).executeTakeFirstOrThrow();
  }
}
