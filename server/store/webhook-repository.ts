/**
 * Webhooks and their deliveries on Kysely, for SQLite and PostgreSQL alike.
 * The deliveries are made by following the change log (audit_events) from the
 * place webhook_dispatch holds, in the same transaction that moves it: an
 * event committed is turned into its deliveries once, whatever crashes. A
 * delivery's body is built from its event's row when it is sent.
 */
import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import type { AuditTrail } from './audit-repository.js';
import { placedEvent } from './audit-repository.js';
import type { DatabaseTraits, Db } from './database-traits.js';
import { EVENT_TYPES } from './event-types.js';
import type {
  AttemptOutcome,
  ChangeAuthor,
  ChangeEvent,
  DeliveryTurn,
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
import { atOrAfter } from './event-times.js';

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
  delivery_id: randomUUID(),
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

  async turn({ now, settle, dispatchLimit, claim }: DeliveryTurn): Promise<{ dispatched: ChangeEvent[]; claimed: DueDelivery[] }> {
    const work = async (trx: Db) => {
      await this.#settle(trx, settle);
      const enabled = await trx.selectFrom('webhooks').selectAll().where('enabled', '=', this.traits.bool(true)).execute();
      const dispatched = await this.#dispatch(trx, enabled, now, dispatchLimit);
      const claimedIds = await this.#claim(trx, enabled, now, claim);
      return { dispatched, claimedIds, webhooks: new Map(enabled.map((row) => [row.webhook_id, row])) };
    };
    const { dispatched, claimedIds, webhooks } = await this.db.transaction().execute(work);
    if (claimedIds.length === 0) return { dispatched, claimed: [] };
    const claimed = await this.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('delivery_id', 'in', claimedIds)
      .orderBy('next_attempt_at')
      .execute();
    const positions = claimed.flatMap((delivery) => (delivery.event_position === null ? [] : [Number(delivery.event_position)]));
    const events = new Map(
      (positions.length === 0 ? [] : await this.db.selectFrom('audit_events').selectAll().where('position', 'in', positions).execute()).map(
        (row) => [Number(row.position), placedEvent(row).event],
      ),
    );
    return {
      dispatched,
      claimed: claimed.flatMap((delivery) => {
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
      }),
    };
  }

  /** Records the attempts, each delivery's state, and since when each webhook has failed every delivery. */
  async #settle(trx: Db, attempted: readonly AttemptOutcome[]): Promise<void> {
    if (attempted.length === 0) return;
    // A webhook deleted while its deliveries were out took them along: nothing of theirs to record.
    let kept = trx
      .selectFrom('webhook_deliveries')
      .select('delivery_id')
      .where(
        'delivery_id',
        'in',
        attempted.map(({ delivery }) => delivery.deliveryId),
      );
    if (this.traits.kind === 'postgres') kept = kept.forUpdate();
    const present = new Set((await kept.execute()).map((row) => row.delivery_id));
    const outcomes = attempted.filter(({ delivery }) => present.has(delivery.deliveryId));
    const rows = outcomes.map(({ delivery, attemptedAt, durationMs, status, error, responseExcerpt, result }) => ({
      delivery_id: delivery.deliveryId,
      webhook_id: delivery.webhookId,
      event_id: delivery.eventId,
      event_type: delivery.eventType,
      attempt: delivery.attempts + 1,
      attempted_at: attemptedAt,
      duration_ms: Math.round(durationMs),
      status,
      error,
      response_excerpt: responseExcerpt,
      next_attempt_at: result.kind === 'retry' ? result.at : null,
    }));
    for (let start = 0; start < rows.length; start += 100) {
      await trx
        .insertInto('webhook_attempts')
        .values(rows.slice(start, start + 100))
        .execute();
    }
    // Most attempts deliver: recorded a batch to a statement; the rest one by one.
    const delivered = outcomes.filter(({ result }) => result.kind === 'delivered').map(({ delivery }) => delivery.deliveryId);
    for (let start = 0; start < delivered.length; start += 200) {
      await trx
        .updateTable('webhook_deliveries')
        .set((eb) => ({ attempts: eb('attempts', '+', 1), state: 'delivered', claimed_until: null }))
        .where('delivery_id', 'in', delivered.slice(start, start + 200))
        .execute();
    }
    for (const { delivery, result } of outcomes) {
      if (result.kind === 'delivered') continue;
      await trx
        .updateTable('webhook_deliveries')
        .set({
          attempts: delivery.attempts + 1,
          state: result.kind === 'retry' ? 'pending' : 'failed',
          claimed_until: null,
          ...(result.kind === 'retry' ? { next_attempt_at: result.at } : {}),
        })
        .where('delivery_id', '=', delivery.deliveryId)
        .execute();
    }
    // A webhook fails from its first failed attempt after its last delivered one.
    const failingFrom = new Map<string, { after: string | null; since: string | null }>();
    for (const { delivery, attemptedAt, result } of [...outcomes].sort((a, b) => a.attemptedAt.localeCompare(b.attemptedAt))) {
      const state = failingFrom.get(delivery.webhookId) ?? { after: null, since: null };
      if (result.kind === 'delivered') failingFrom.set(delivery.webhookId, { after: attemptedAt, since: null });
      else failingFrom.set(delivery.webhookId, { after: state.after, since: state.since ?? attemptedAt });
    }
    for (const [webhookId, { after, since }] of failingFrom) {
      const failing = since === null ? null : after === null ? sql<string>`coalesce(failing_since, ${since})` : sql<string>`${since}`;
      await trx.updateTable('webhooks').set({ failing_since: failing }).where('webhook_id', '=', webhookId).execute();
    }
  }

  /** Turns the events logged past the dispatch place into deliveries; none when another instance is at it. */
  async #dispatch(trx: Db, enabled: Row[], now: string, limit: number): Promise<ChangeEvent[]> {
    if (limit === 0) return [];
    const place = trx.selectFrom('webhook_dispatch').select('position').where('id', '=', 1);
    // Up to the head read first: every place up to it is final (audit-repository.ts).
    const head = Number(
      (
        await trx
          .selectFrom('audit_events')
          .select(sql<number | string | null>`max(position)`.as('head'))
          .executeTakeFirst()
      )?.head ?? 0,
    );
    if (this.traits.kind === 'postgres') {
      // Nothing new is read without a lock: a row lock gives the transaction an id and writes
      // to the log, which an idle instance would otherwise do at every turn (docs/events.md).
      const seen = await place.executeTakeFirst();
      if (!seen || head <= Number(seen.position)) return [];
    }
    // One dispatcher at a time: another instance that holds the place carries on without this one.
    const held = await (this.traits.kind === 'postgres' ? place.forUpdate().skipLocked() : place).executeTakeFirst();
    if (!held) return [];
    const from = Number(held.position);
    if (head <= from) return [];
    if (enabled.length === 0) {
      // No webhook is owed these events: the place moves past them unread, and the engine,
      // seeing nothing dispatched, takes its turns at the idle pace rather than every 10 ms.
      await trx.updateTable('webhook_dispatch').set({ position: head }).where('id', '=', 1).execute();
      return [];
    }
    const rows = await trx
      .selectFrom('audit_events')
      .selectAll()
      .where('position', '>', from)
      .where('position', '<=', head)
      .orderBy('position')
      .limit(limit)
      .execute();
    const events = rows.map(placedEvent);
    const deliveries = [];
    for (const webhook of enabled) {
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
  }

  /**
   * Claims due deliveries webhook by webhook (in an order that changes every turn, so that
   * none waits behind the others for room), each up to its share: the deliveries of a
   * disabled webhook wait until it is enabled again.
   */
  async #claim(trx: Db, enabled: Row[], now: string, { leaseUntil, room, perWebhook, inHand }: DeliveryTurn['claim']): Promise<string[]> {
    const ids: string[] = [];
    const offset = enabled.length === 0 ? 0 : Math.floor(Math.random() * enabled.length);
    const order = [...enabled.slice(offset), ...enabled.slice(0, offset)];
    for (const webhook of order) {
      const want = Math.min(perWebhook - (inHand.get(webhook.webhook_id) ?? 0), room - ids.length);
      if (want <= 0) continue;
      let due = trx
        .selectFrom('webhook_deliveries')
        .select('delivery_id')
        .where('webhook_id', '=', webhook.webhook_id)
        .where('state', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', now)]))
        .orderBy('next_attempt_at')
        .limit(want);
      // Several instances claim at once: each skips what another has locked.
      if (this.traits.kind === 'postgres') due = due.forUpdate().skipLocked();
      ids.push(...(await due.execute()).map((row) => row.delivery_id));
    }
    if (ids.length > 0)
      await trx.updateTable('webhook_deliveries').set({ claimed_until: leaseUntil }).where('delivery_id', 'in', ids).execute();
    return ids;
  }

  async releaseOrphanedClaims(): Promise<number> {
    if (this.traits.kind === 'postgres') return 0;
    const result = await this.db
      .updateTable('webhook_deliveries')
      .set({ claimed_until: null })
      .where('state', '=', 'pending')
      .where('claimed_until', 'is not', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }

  async redeliver(webhookId: string, which: { eventId: string } | { since: string }, now: string): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const webhook = await trx.selectFrom('webhooks').selectAll().where('webhook_id', '=', webhookId).executeTakeFirst();
      if (!webhook) return 0;
      let query = trx.selectFrom('audit_events').selectAll().orderBy('position');
      query = 'eventId' in which ? query.where('event_id', '=', which.eventId) : query.where(atOrAfter(which.since));
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
        delivery_id: randomUUID(),
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
