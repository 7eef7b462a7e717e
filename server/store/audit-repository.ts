/**
 * Audit events on Kysely, which are also the change feed's events. Every other
 * repository writes the event of a change through `AuditWriter.record`, on the
 * change's own transaction, so that a change without its event, or an event
 * without its change, cannot exist. Event ids are UUIDv7: unique across
 * instances and, as text, in time order.
 *
 * Each event also takes its place in the order of commit (`position`), which
 * the feed's cursors name: a follower reading "after position p" must never
 * miss a row that commits later with a smaller position. A sequence alone
 * cannot promise that on PostgreSQL: two transactions take numbers in one
 * order and may commit in the other, and a reader between the two commits
 * would step past the later one's row for good. So the positions are handed
 * out by a single sequencer: a transaction-scoped advisory lock taken before a
 * transaction's first event, held until it commits, so that positions are
 * taken in the order transactions commit. SQLite has a single writer already,
 * and numbers each event after the last one in the same write, or after the
 * last one the retention deleted (audit_positions), whichever is greater: a
 * position is never taken twice, even once every event is deleted.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type CompiledQuery, type Kysely, type RawBuilder, type Selectable, sql } from 'kysely';
import type { DatabaseTraits, Db } from './database-traits.js';
import { EVENT_TYPE_OF, operationsOf, resourceTypeOf } from './event-types.js';
import { recordClaim } from './idempotency-repository.js';
import { queryTemplate } from './query-template.js';
import type {
  AuditEvent,
  AuditOperation,
  AuditPage,
  AuditQuery,
  ChangeAuthor,
  ChangeEvent,
  FeedPage,
  FeedQuery,
  IdempotencyClaim,
  PlacedChangeEvent,
} from './records.js';
import type { AuditRepository } from './repositories.js';
import type { AuditEventsTable, Database } from './schema.js';
import { eventIds } from './event-ids.js';
import { atOrAfter, before } from './event-times.js';
import { type EventOrder, eventOrder, lastPosition } from './event-order.js';
import { type ChainFilter, headOf, pruneDeadHeads, sqliteHeadOf, sqliteHeadsOf, walkChain } from './user-event-chains.js';

/** What a change says about itself; the author and the time are added. */
export interface ChangeRecord {
  operation: AuditOperation;
  targetUserId?: string;
  targetGroupId?: string;
  targetApiKey?: string;
  targetWebhookId?: string;
  /** Field names only, never values. */
  changedFields?: readonly string[];
  /** The version the changed user or group is at after the change, where it has one. */
  resourceVersion?: number;
}

/**
 * The advisory lock (PostgreSQL) that makes the event positions follow the order of commit: one
 * number for the whole cluster, as for the store's lease (postgres/lease.ts).
 */
export const EVENT_SEQUENCER_LOCK = 7_316_400_514;

/** Takes the sequencer until the transaction ends (PostgreSQL): what every writer of events calls, once per transaction. */
const takeSequencer = sql<void>`pg_advisory_xact_lock(${EVENT_SEQUENCER_LOCK})`;

type Row = Selectable<AuditEventsTable>;

/** Where every repository writes a change's event, in the change's own transaction. */
export interface AuditTrail {
  /** Writes the event of a change on `db`, which must be the change's own transaction. */
  record(db: Db, by: ChangeAuthor, change: ChangeRecord): Promise<void>;
  /** Writes the events of several changes made by one write (a group's members), in this order, in a few statements. */
  recordAll(db: Db, by: ChangeAuthor, changes: readonly ChangeRecord[]): Promise<void>;
}

/** Events written by one statement: a group's 1,000 members in two, within both databases' limits on parameters. */
const EVENTS_PER_INSERT = 500;

/** An event's insert, compiled once: record()'s values in, the statement out. */
type EventInsert = (...values: string[]) => CompiledQuery;

/**
 * The insert of one event: its position from `position` (PostgreSQL's column default where
 * undefined); on SQLite also the link to the user's event before it.
 */
function eventInsert(db: Kysely<Database>, kind: DatabaseTraits['kind'], position: RawBuilder<number> | undefined): EventInsert {
  const sqlite = kind === 'sqlite';
  return queryTemplate(
    // PostgreSQL's insert leaves the last two values out (below).
    (sqlite ? 14 : 12) as 14,
    (
      event_id: string,
      time: string,
      operation: string,
      actor: string,
      request_id: string,
      target_user_id: string,
      target_group_id: string,
      target_api_key: string,
      changed_fields: string,
      protocol: string,
      resource_version: string,
      target_webhook_id: string,
      // SQLite: the user's id again, twice, for the link to the user's event before this one.
      user_on_row: string,
      user_kept: string,
    ) =>
      db.insertInto('audit_events').values({
        ...(position ? { position } : {}),
        // On SQLite the event names the user's event before it as it is written: the trigger
        // would otherwise write the row a second time to link it (migration 0021). PostgreSQL's
        // trigger links it before the row is written.
        ...(sqlite ? { previous_user_position: sqliteHeadOf(user_on_row, user_kept) } : {}),
        resource_version: resource_version as unknown as number | null,
        event_id,
        time,
        operation,
        actor,
        request_id,
        target_user_id,
        target_group_id,
        target_api_key,
        target_webhook_id,
        changed_fields,
        protocol,
      }),
  );
}

/** The audit trail in the audit_events table: the store's (open-store.ts). */
export class AuditWriter implements AuditTrail {
  /** update_user writes one event per request: its insert is compiled once (query-template.ts). */
  readonly #insert: EventInsert;
  /**
   * PostgreSQL: the insert of a transaction's first event, which takes the sequencer as it draws
   * the event's position. One statement instead of two: each is a round trip to the cluster, and
   * update_user sent six (BENCHMARKS.md).
   */
  readonly #insertTakingSequencer: EventInsert | undefined;
  /** The transactions (PostgreSQL) that hold the sequencer already. */
  readonly #sequenced = new WeakSet<Db>();

  constructor(
    db: Kysely<Database>,
    private readonly traits: Pick<DatabaseTraits, 'kind'>,
  ) {
    // PostgreSQL numbers the event from its sequence (the column's default); SQLite after the last
    // one written or deleted: numbering from the events left would take again, once the retention
    // has deleted the newest, positions that a cursor, the dispatcher or a chain still name.
    if (traits.kind === 'sqlite') {
      this.#insert = eventInsert(db, 'sqlite', sql<number>`${lastPosition('sqlite')} + 1`);
    } else {
      this.#insert = eventInsert(db, 'postgres', undefined);
      // The lock first, then the number: the subquery holding the lock is read before the number
      // is drawn (a subquery with a volatile function is neither merged into the query nor
      // dropped). A number drawn before waiting for the lock could commit after a larger one.
      this.#insertTakingSequencer = eventInsert(
        db,
        'postgres',
        sql<number>`(select nextval('audit_events_position_seq') from (select ${takeSequencer}) as sequenced)`,
      );
    }
  }

  /** The Idempotency-Keys each transaction recorded already (SQLite's commit group holds several requests' changes). */
  readonly #claimed = new WeakMap<Db, WeakSet<IdempotencyClaim>>();

  /** Records, once per transaction, the Idempotency-Key the change was asked under, so that the key names the change only if it commits. */
  async #claim(db: Db, claim: IdempotencyClaim | undefined): Promise<void> {
    if (claim && !this.#claimed.get(db)?.has(claim)) {
      await recordClaim(db, claim);
      this.#claimed.set(db, (this.#claimed.get(db) ?? new WeakSet()).add(claim));
    }
  }

  /** Takes the sequencer for the transaction (PostgreSQL), once, by a statement of its own: before an insert of several events. */
  async #takeSequencer(db: Db): Promise<void> {
    if (this.traits.kind === 'postgres' && !this.#sequenced.has(db)) {
      await sql`select ${takeSequencer}`.execute(db);
      this.#sequenced.add(db);
    }
  }

  /** Writes the event of a change on `db`, which must be the change's own transaction. */
  async record(db: Db, by: ChangeAuthor, change: ChangeRecord): Promise<void> {
    // Only where there is something to record: update_user's path, without, skips a turn.
    if (by.idempotency) await this.#claim(db, by.idempotency);
    // PostgreSQL's first event of the transaction takes the sequencer; SQLite has no sequencer to take.
    const taking = this.#insertTakingSequencer && !this.#sequenced.has(db) ? this.#insertTakingSequencer : undefined;
    const { id, time } = eventIds.next();
    const values = [
      id,
      time,
      change.operation,
      by.actor,
      by.requestId,
      change.targetUserId ?? null,
      change.targetGroupId ?? null,
      change.targetApiKey ?? null,
      (change.changedFields ?? []).join(','),
      by.protocol,
      change.resourceVersion ?? null,
      change.targetWebhookId ?? null,
      change.targetUserId ?? null,
      change.targetUserId ?? null,
    ];
    await db.executeQuery((taking ?? this.#insert)(...(values as string[])));
    if (taking) this.#sequenced.add(db);
  }

  /**
   * Writes the events of several changes on `db`, the changes' own transaction, in the
   * order given: one statement per EVENTS_PER_INSERT events instead of one per event, so
   * that a PATCH of a thousand members holds SQLite's (synchronous) thread for milliseconds.
   */
  async recordAll(db: Db, by: ChangeAuthor, changes: readonly ChangeRecord[]): Promise<void> {
    if (changes.length <= 1) return changes[0] && this.record(db, by, changes[0]);
    await this.#claim(db, by.idempotency);
    await this.#takeSequencer(db);
    const sqlite = this.traits.kind === 'sqlite';
    // SQLite numbers them and links each to its user's event before it here, as record()'s insert
    // does in SQL: a subquery per row would be read once for the whole statement.
    let last = sqlite ? Number((await db.selectNoFrom(lastPosition('sqlite').as('last')).executeTakeFirstOrThrow()).last) : 0;
    for (let start = 0; start < changes.length; start += EVENTS_PER_INSERT) {
      const chunk = changes.slice(start, start + EVENTS_PER_INSERT);
      const heads = sqlite ? await sqliteHeadsOf(db, [...new Set(chunk.flatMap((change) => change.targetUserId ?? []))]) : undefined;
      const rows = chunk.map((change) => {
        let placed = {};
        if (heads) {
          const position = ++last;
          const userId = change.targetUserId;
          placed = { position, previous_user_position: userId === undefined ? null : (heads.get(userId) ?? null) };
          // The same user again in this statement: linked to this event.
          if (userId !== undefined) heads.set(userId, position);
        }
        const { id, time } = eventIds.next();
        return {
          ...placed,
          event_id: id,
          time,
          operation: change.operation,
          actor: by.actor,
          request_id: by.requestId,
          target_user_id: change.targetUserId ?? null,
          target_group_id: change.targetGroupId ?? null,
          target_api_key: change.targetApiKey ?? null,
          target_webhook_id: change.targetWebhookId ?? null,
          changed_fields: (change.changedFields ?? []).join(','),
          protocol: by.protocol,
          resource_version: change.resourceVersion ?? null,
        };
      });
      await db.insertInto('audit_events').values(rows).execute();
      // The next statement at the next turn: SQLite's statements run on the event loop's thread.
      if (start + EVENTS_PER_INSERT < changes.length) await nextTurn();
    }
  }
}

export class KyselyAuditRepository implements AuditRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly traits: Pick<DatabaseTraits, 'kind'>,
  ) {}

  async feed({ after, since, types, resourceId, limit }: FeedQuery): Promise<FeedPage> {
    // The head first, then the events up to it. Positions are taken in the order of commit
    // (the sequencer above), so every place up to the head is final when the head is read: the
    // page leaves nothing up to it unread, and whatever commits meanwhile comes after it.
    const head = await this.head();
    let query = this.db.selectFrom('audit_events').selectAll().where('position', '<=', head);
    query = after === undefined ? query.where('time', '>=', since) : query.where('position', '>', after);
    if (types) query = query.where('operation', 'in', operationsOf(types));
    if (resourceId !== undefined) {
      query = query.where((eb) =>
        eb.or([
          eb('target_user_id', '=', resourceId),
          eb('target_group_id', '=', resourceId),
          eb('target_api_key', '=', resourceId),
          eb('target_webhook_id', '=', resourceId),
        ]),
      );
    }
    const rows = await query.orderBy('position').limit(limit).execute();
    return { events: rows.map(placedEvent), head };
  }

  async head(): Promise<number> {
    const row = await this.db
      .selectFrom('audit_events')
      .select(sql<number | string | null>`max(position)`.as('head'))
      .executeTakeFirst();
    return Number(row?.head ?? 0);
  }

  async list(query: AuditQuery): Promise<AuditPage> {
    if (query.targetUserId !== undefined) return this.#listOfUser(query, query.targetUserId);
    const { pageSize, after, actor, operation, since, until } = query;
    let select = this.db.selectFrom('audit_events').selectAll();
    if (actor !== undefined) select = select.where('actor', '=', actor);
    if (operation !== undefined) select = select.where('operation', '=', operation);
    if (since !== undefined) select = select.where(atOrAfter(since));
    if (until !== undefined) select = select.where(before(until));
    if (after !== undefined) select = select.where('event_id', '<', after);
    // One event more than the page tells whether older ones follow.
    const rows = await select
      .orderBy('event_id', 'desc')
      .limit(pageSize + 1)
      .execute();
    return page(rows, pageSize);
  }

  /**
   * One user's events, newest first in the order they were committed, along the user's chain
   * (user-event-chains.ts): from its head, or on from the event a cursor names.
   */
  async #listOfUser({ pageSize, after, actor, operation, since, until }: AuditQuery, userId: string): Promise<AuditPage> {
    const filters: ChainFilter[] = [];
    if (actor !== undefined) filters.push(sql<boolean>`actor = ${actor}`);
    if (operation !== undefined) filters.push(sql<boolean>`operation = ${operation}`);
    if (since !== undefined) filters.push(sql<boolean>`time >= ${since}`);
    if (until !== undefined) filters.push(sql<boolean>`time < ${until}`);
    let start = await headOf(this.traits.kind, this.db, userId);
    if (after !== undefined) {
      const cursor = await this.db
        .selectFrom('audit_events')
        .select(['target_user_id', 'previous_user_position'])
        .where('event_id', '=', after)
        .executeTakeFirst();
      if (cursor?.target_user_id === userId)
        start = cursor.previous_user_position === null ? undefined : Number(cursor.previous_user_position);
      // A cursor from another listing, or an event pruned since: the user's events older than it.
      else filters.push(sql<boolean>`event_id < ${after}`);
    }
    if (start === undefined) return { events: [], more: false };
    return page(await walkChain(this.db, userId, start, filters, pageSize + 1), pageSize);
  }

  async prune(olderThan: string, limit: number): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const oldest = await trx
        .selectFrom('audit_events')
        .select(['event_id', 'position'])
        .where(before(olderThan))
        .orderBy('event_id')
        .limit(limit)
        .execute();
      if (oldest.length === 0) return 0;
      // Noted with the deletion: SQLite numbers new events after it (event-order.ts).
      const last = Math.max(...oldest.map((row) => Number(row.position)));
      await trx.updateTable('audit_positions').set({ last_pruned: last }).where('id', '=', 1).where('last_pruned', '<', last).execute();
      const ids = oldest.map((row) => row.event_id);
      const result = await trx.deleteFrom('audit_events').where('event_id', 'in', ids).executeTakeFirst();
      return Number(result.numDeletedRows);
    });
  }

  pruneChainHeads(after: string | undefined, limit: number): Promise<{ next: string | undefined; deleted: number }> {
    return pruneDeadHeads(this.db, after, limit);
  }

  order(): Promise<EventOrder> {
    return eventOrder(this.traits.kind, this.db);
  }
}

/** The actor as the feed names it, from who the audit trail says made the change. */
function actorOf(row: Row): ChangeEvent['data']['actor'] {
  if (row.protocol === 'scim') return { type: 'scim', id: row.actor };
  if (row.protocol === 'workspace') return { type: 'api_key', id: row.actor };
  return row.actor === 'service' ? { type: 'service', id: null } : { type: 'admin', id: null };
}

/** An audit row as the change event it is (the feed's, and a webhook delivery's body). */
export function placedEvent(row: Row): PlacedChangeEvent {
  const type = EVENT_TYPE_OF[row.operation as AuditOperation];
  const resource = resourceTypeOf(type);
  const ids = { user: row.target_user_id, group: row.target_group_id, api_key: row.target_api_key, webhook: row.target_webhook_id };
  const id = ids[resource] ?? '';
  const membership = type === 'group.member_added' || type === 'group.member_removed';
  return {
    position: Number(row.position),
    event: {
      event_id: row.event_id,
      type,
      timestamp: row.time,
      data: {
        resource: { type: resource, id, version: row.resource_version },
        ...(membership && row.target_user_id ? { member: { user_id: row.target_user_id } } : {}),
        changed: row.changed_fields === '' ? [] : row.changed_fields.split(','),
        actor: actorOf(row),
        request_id: row.request_id,
      },
    },
  };
}

/** A page of `pageSize` from rows read one beyond it, which tells whether older ones follow. */
function page(rows: Row[], pageSize: number): AuditPage {
  const more = rows.length > pageSize;
  return { events: (more ? rows.slice(0, pageSize) : rows).map(toEvent), more };
}

function toEvent({ position: _position, resource_version: _version, previous_user_position: _previous, ...row }: Row): AuditEvent {
  return {
    ...row,
    operation: row.operation as AuditOperation,
    protocol: row.protocol as AuditEvent['protocol'],
    changed_fields: row.changed_fields === '' ? [] : row.changed_fields.split(','),
  };
}
