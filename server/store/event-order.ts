/**
 * The order of events goes on across `admin restore`. A backup holds the order
 * as it was when it was taken: put in place, its events end before positions
 * that the change feed's followers, the webhook dispatcher and the users'
 * chains may already have passed, and new events would be numbered under them
 * (never seen by a follower, never sent to a webhook). So a restore numbers new
 * events after the last position the replaced database had reached, and notes
 * when it happened: a cursor read before then describes a directory that is no
 * more, and the feed answers it 410 (directory/change-feed.ts) so that its
 * follower reads the directory afresh.
 */
import { type Kysely, sql } from 'kysely';
import type { Database } from './schema.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a database about to be replaced may be at any older schema.
type AnyDatabase = Kysely<any>;

/**
 * The largest position a database's events have reached, deleted ones included: its events,
 * the last one the retention deleted, the webhook dispatcher's place and, on PostgreSQL, the
 * sequence. 0 for a database without any, or at a schema from before positions.
 */
export async function positionReached(db: AnyDatabase, kind: 'sqlite' | 'postgres'): Promise<number> {
  const tables = new Map((await db.introspection.getTables()).map((table) => [table.name, table.columns.map((column) => column.name)]));
  const reads = [];
  if (tables.get('audit_events')?.includes('position')) {
    reads.push(sql<{ position: number | string | null }>`select max(position) as position from audit_events`);
    if (kind === 'postgres')
      reads.push(sql<{ position: number | string | null }>`select last_value as position from audit_events_position_seq`);
  }
  if (tables.has('audit_positions'))
    reads.push(sql<{ position: number | string | null }>`select last_pruned as position from audit_positions`);
  if (tables.has('webhook_dispatch')) reads.push(sql<{ position: number | string | null }>`select position from webhook_dispatch`);
  let reached = 0;
  for (const read of reads) for (const row of (await read.execute(db)).rows) reached = Math.max(reached, Number(row.position ?? 0));
  return reached;
}

/**
 * On a database just restored (and migrated) over one whose events had reached `reached`: new
 * events are numbered after it, and cursors read before `at` are expired. Over a database
 * without events (a new one: the directory moved to another machine) nothing is noted: a
 * cursor its followers hold is good up to the backup's last event, and one past it is refused
 * as past every event the database has had.
 */
export async function continueAfterRestore(db: Kysely<Database>, kind: 'sqlite' | 'postgres', reached: number, at: string): Promise<void> {
  if (reached === 0) return;
  if (kind === 'postgres') {
    await sql`select setval('audit_events_position_seq', greatest(${reached}, (select last_value from audit_events_position_seq)))`.execute(
      db,
    );
  }
  // SQLite numbers after the larger of its last event and this (audit-repository.ts).
  await db.updateTable('audit_positions').set({ last_pruned: reached }).where('id', '=', 1).where('last_pruned', '<', reached).execute();
  await db.updateTable('audit_positions').set({ restored_at: at }).where('id', '=', 1).execute();
}

/** Where the order stands, for the change feed's check of a cursor (audit-repository.ts). */
export interface EventOrder {
  /** The largest position an event has had here: the last one, or the last one deleted. */
  reached: number;
  /** When `admin restore` last replaced a database that had events, if ever. */
  restoredAt: string | undefined;
}

export async function eventOrder(kind: 'sqlite' | 'postgres', db: Kysely<Database>): Promise<EventOrder> {
  // One row whatever audit_positions holds: without its row, the events alone say how far they reached.
  const row = await db
    .selectNoFrom((eb) => [
      lastPosition(kind).as('reached'),
      eb.selectFrom('audit_positions').select('restored_at').where('id', '=', 1).as('restored_at'),
    ])
    .executeTakeFirstOrThrow();
  return { reached: Number(row.reached), restoredAt: row.restored_at ?? undefined };
}

/**
 * The largest position an event has had: the last one there is, or the last one the retention
 * deleted (migration 0019), whichever is greater. SQLite numbers each new event after it
 * (audit-repository.ts).
 */
export function lastPosition(kind: 'sqlite' | 'postgres') {
  const larger = sql.raw(kind === 'postgres' ? 'greatest' : 'max');
  // PostgreSQL's bigint comes back as a string.
  return sql<
    number | string
  >`(select ${larger}(coalesce(max(position), 0), coalesce((select last_pruned from audit_positions where id = 1), 0)) from audit_events)`;
}
