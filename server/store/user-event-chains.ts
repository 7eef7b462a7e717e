/**
 * Each user's events, newest to oldest, found without an index by user.
 *
 * An index on audit_events by user put every write's entry on a random page of
 * the index (users change in no particular order), and as each commit is on
 * disk before its answer, that page was written with it: on SQLite the largest
 * part of what the audit trail cost a write (BENCHMARKS.md, issue 43). Instead
 * each event about a user names the position of the user's event before it
 * (`previous_user_position`), and the position of the newest one, the chain's
 * head, is kept where the write goes anyway:
 *
 * - On SQLite on the user's own row, which the change has just written, so its
 *   page is in the commit already; a user without a row (deleted) has it in
 *   user_event_heads.
 * - On PostgreSQL in user_event_heads, for every user: written while the change
 *   feed's sequencer is held (audit-repository.ts), where locking the user's row
 *   could deadlock with a transaction that updated the user and then waits for
 *   the sequencer.
 *
 * On PostgreSQL the chains are kept by the database, as an index is: a trigger
 * made by migration 0018 links each event as it is inserted, by any writer (an
 * instance of the version before it, during a rolling upgrade, too). On SQLite,
 * which has one writer, the trail's writer names each link as it inserts the
 * event (sqliteHeadOf, sqliteHeadsOf), which spares a second write of the row
 * (migration 0021), and triggers move the head: onto the user's row with each
 * event, off it when the user is deleted. Here the chains are read.
 *
 * A chain is walked from its head, a lookup by position at each step, and a page
 * stops the walk once it is full: both databases evaluate a recursive query only
 * as far as its reader reads.
 */
import { type RawBuilder, type Selectable, sql } from 'kysely';
import type { DatabaseTraits, Db } from './database-traits.js';
import type { AuditEventsTable } from './schema.js';

/**
 * On SQLite, the position of the user's newest event as an expression, null for a user without
 * any: the head on the user's row, else the one kept once the row went (the row's is the newer:
 * it is written while the row exists, the other once it is gone). The user's id is asked twice,
 * once for each place, so that a compiled query (query-template.ts) can take it as two values.
 */
export function sqliteHeadOf(userIdOnRow: string, userIdKept: string): RawBuilder<number | null> {
  return sql<number | null>`coalesce(
    (select last_event_position from users where user_id = ${userIdOnRow}),
    (select position from user_event_heads where user_id = ${userIdKept}))`;
}

/** On SQLite, the heads of these users' chains, as sqliteHeadOf finds each: users without events left out. */
export async function sqliteHeadsOf(db: Db, userIds: readonly string[]): Promise<Map<string, number>> {
  const heads = new Map<string, number>();
  if (userIds.length === 0) return heads;
  const kept = await db.selectFrom('user_event_heads').select(['user_id', 'position']).where('user_id', 'in', userIds).execute();
  for (const row of kept) heads.set(row.user_id, Number(row.position));
  const onRows = await db
    .selectFrom('users')
    .select(['user_id', 'last_event_position'])
    .where('user_id', 'in', userIds)
    .where('last_event_position', 'is not', null)
    .execute();
  for (const row of onRows) heads.set(row.user_id, Number(row.last_event_position));
  return heads;
}

/** The position of the user's newest event, if the user has any. */
export async function headOf(kind: DatabaseTraits['kind'], db: Db, userId: string): Promise<number | undefined> {
  const row = await (
    kind === 'postgres'
      ? db.selectFrom('user_event_heads').select('position').where('user_id', '=', userId)
      : db.selectNoFrom(sqliteHeadOf(userId, userId).as('position'))
  ).executeTakeFirst();
  return row?.position === null || row?.position === undefined ? undefined : Number(row.position);
}

/** What a walk keeps of the events it passes: each a condition on the event's columns. */
export type ChainFilter = RawBuilder<boolean>;

/**
 * A user's events from the one at `start` back along the chain, newest first, those that
 * pass every filter, at most `limit`. Each step goes to a smaller position, so a walk ends
 * even over rows edited by hand, and stays with the user: a database whose positions were
 * once numbered again (before migration 0019, a trail emptied by its retention started again
 * from 1) may have a head or a link that names another user's event, where the walk stops.
 */
export async function walkChain(
  db: Db,
  userId: string,
  start: number,
  filters: readonly ChainFilter[],
  limit: number,
): Promise<Selectable<AuditEventsTable>[]> {
  const kept = filters.length === 0 ? sql`1 = 1` : sql.join(filters, sql` and `);
  const { rows } = await sql<Selectable<AuditEventsTable>>`with recursive chain as (
      select * from audit_events where position = ${start} and target_user_id = ${userId}
      union all
      select audit_events.* from chain join audit_events
        on audit_events.position = chain.previous_user_position and audit_events.position < chain.position
        and audit_events.target_user_id = chain.target_user_id
    )
    select * from chain where ${kept} limit ${limit}`.execute(db);
  return rows;
}

/**
 * Deletes the heads, among up to `limit` of them after `after` in the order of user ids, whose
 * event the retention has deleted: their chains have nothing left to walk. A user deleted long
 * ago would otherwise keep a head for ever. Resolves with the last user id looked at (none once
 * past the last head) and how many heads went.
 *
 * A head at or below the last position pruned (audit_positions) whose event is gone: a head that
 * moves meanwhile moves to a new event, numbered above it, and stays (PostgreSQL checks a row
 * that changed under the delete against its conditions again).
 */
export async function pruneDeadHeads(
  db: Db,
  after: string | undefined,
  limit: number,
): Promise<{ next: string | undefined; deleted: number }> {
  let scanned = db.selectFrom('user_event_heads').select('user_id').orderBy('user_id').limit(limit);
  if (after !== undefined) scanned = scanned.where('user_id', '>', after);
  const users = (await scanned.execute()).map((row) => row.user_id);
  if (users.length === 0) return { next: undefined, deleted: 0 };
  const result = await db
    .deleteFrom('user_event_heads')
    .where('user_id', 'in', users)
    .where('position', '<=', (eb) => eb.selectFrom('audit_positions').select('last_pruned').where('id', '=', 1))
    .where((eb) =>
      eb.not(
        eb.exists(eb.selectFrom('audit_events').select('position').whereRef('audit_events.position', '=', 'user_event_heads.position')),
      ),
    )
    .executeTakeFirst();
  return { next: users.length < limit ? undefined : users.at(-1), deleted: Number(result.numDeletedRows) };
}
