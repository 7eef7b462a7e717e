/**
 * Audit events on Kysely. Every other repository writes the event of a change
 * through `AuditWriter.record`, on the change's own transaction, so that a
 * change without its event, or an event without its change, cannot exist.
 * Event ids are UUIDv7: unique across instances and, as text, in time order.
 */
import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import type { Db } from './database-traits.js';
import { queryTemplate } from './query-template.js';
import type { AuditEvent, AuditOperation, AuditPage, AuditQuery, ChangeAuthor } from './records.js';
import type { AuditRepository } from './repositories.js';
import type { AuditEventsTable, Database } from './schema.js';

/** What a change says about itself; the author and the time are added. */
export interface ChangeRecord {
  operation: AuditOperation;
  targetUserId?: string;
  targetGroupId?: string;
  targetApiKey?: string;
  /** Field names only, never values. */
  changedFields?: readonly string[];
}

type Row = Selectable<AuditEventsTable>;

/** Where every repository writes a change's event, in the change's own transaction. */
export interface AuditTrail {
  /** Writes the event of a change on `db`, which must be the change's own transaction. */
  record(db: Db, by: ChangeAuthor, change: ChangeRecord): Promise<void>;
}

/** The audit trail in the audit_events table: the store's (open-store.ts). */
export class AuditWriter implements AuditTrail {
  /** update_user writes one event per request: its insert is compiled once (query-template.ts). */
  readonly #insert: (...values: string[]) => CompiledQuery;

  constructor(db: Kysely<Database>) {
    this.#insert = queryTemplate(
      10,
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
      ) =>
        db.insertInto('audit_events').values({
          event_id,
          time,
          operation,
          actor,
          request_id,
          target_user_id,
          target_group_id,
          target_api_key,
          changed_fields,
          protocol,
        }),
    );
  }

  /** Writes the event of a change on `db`, which must be the change's own transaction. */
  async record(db: Db, by: ChangeAuthor, change: ChangeRecord): Promise<void> {
    const values = [
      uuidv7(),
      new Date().toISOString(),
      change.operation,
      by.actor,
      by.requestId,
      change.targetUserId ?? null,
      change.targetGroupId ?? null,
      change.targetApiKey ?? null,
      (change.changedFields ?? []).join(','),
      by.protocol,
    ];
    await db.executeQuery(this.#insert(...(values as string[])));
  }
}

export class KyselyAuditRepository implements AuditRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async list({ pageSize, after, targetUserId, actor, since, until }: AuditQuery): Promise<AuditPage> {
    let query = this.db.selectFrom('audit_events').selectAll();
    if (targetUserId !== undefined) query = query.where('target_user_id', '=', targetUserId);
    if (actor !== undefined) query = query.where('actor', '=', actor);
    if (since !== undefined) query = query.where('time', '>=', since);
    if (until !== undefined) query = query.where('time', '<', until);
    if (after !== undefined) query = query.where('event_id', '<', after);
    // One event more than the page tells whether older ones follow.
    const rows = await query
      .orderBy('event_id', 'desc')
      .limit(pageSize + 1)
      .execute();
    const more = rows.length > pageSize;
    return { events: (more ? rows.slice(0, pageSize) : rows).map(toEvent), more };
  }

  async prune(before: string, limit: number): Promise<number> {
    const oldest = this.db.selectFrom('audit_events').select('event_id').where('time', '<', before).orderBy('time').limit(limit);
    const result = await this.db.deleteFrom('audit_events').where('event_id', 'in', oldest).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}

function toEvent(row: Row): AuditEvent {
  return {
    ...row,
    operation: row.operation as AuditOperation,
    protocol: row.protocol as AuditEvent['protocol'],
    changed_fields: row.changed_fields === '' ? [] : row.changed_fields.split(','),
  };
}
