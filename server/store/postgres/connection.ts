/**
 * PostgreSQL, for several service instances sharing one database. A pooled
 * Kysely whose every connection is bounded in time (timeouts.ts) and can fail
 * without taking the process with it; migrations run on a connection of their
 * own, under a session-level advisory lock, so that instances starting
 * together apply each migration exactly once.
 */
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient, sql } from 'kysely';
import pg from 'pg';
import { type StoreCondition, withFaultTranslation } from '../faults.js';
import { migrateToLatest } from '../migrations.js';
import type { Database } from '../schema.js';
import { type DatabaseTimeouts, UNANSWERED_GRACE_MS } from '../timeouts.js';
import { postgresFault } from './faults.js';
import { holdPostgresLease } from './lease.js';
import { DEFAULT_POOL_SIZE } from './pool-size.js';
import type { Lease } from '../sqlite/lease.js';

/** Arbitrary but fixed: the advisory lock every instance takes to migrate. */
export const MIGRATION_LOCK = 7_316_400_512;

/**
 * The pool as Kysely takes it, with two differences. A connection that failed
 * under a statement (lost, or silent past its timeout) goes back to the pool
 * as broken, so that the pool ends it rather than hand it to the next request.
 * And every connection has an error listener for as long as it lives: pg
 * emits 'error' on a connection the server ends, and an 'error' with no
 * listener would end the process.
 */
function poolForKysely(pool: pg.Pool, lease: Promise<Lease>): PostgresPool {
  pool.on('connect', (client) => client.on('error', () => {}));
  // An idle connection the server ends leaves the pool, which opens another when one is needed.
  pool.on('error', () => {});
  return {
    async connect(): Promise<PostgresPoolClient> {
      // Nothing is read or written before the lease is held (postgres/lease.ts).
      await lease;
      const client = await pool.connect();
      let broken = false;
      const query = async (text: string, parameters: readonly unknown[]) => {
        try {
          return await client.query(text, parameters as unknown[]);
        } catch (error) {
          if (!(error instanceof pg.DatabaseError)) broken = true;
          throw error;
        }
      };
      return {
        // Kysely passes a cursor only to stream a query, which the store never does.
        query,
        release: () => client.release(broken ? new Error('the connection failed under a statement') : undefined),
      } as unknown as PostgresPoolClient;
    },
    async end() {
      await pool.end();
      (await lease.catch(() => undefined))?.release();
    },
  };
}

export function openPostgres(
  url: string,
  name: string,
  timeouts: DatabaseTimeouts,
  condition: StoreCondition,
  poolSize = DEFAULT_POOL_SIZE,
): { db: Kysely<Database>; pool: pg.Pool; lease: Promise<Lease> } {
  // Taken at once, awaited by the first use: a refusal surfaces there, never as an unhandled rejection.
  const lease = holdPostgresLease(url, name, timeouts);
  lease.catch(() => {});
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: timeouts.connectMs,
    statement_timeout: timeouts.statementMs,
    idle_in_transaction_session_timeout: timeouts.statementMs,
    lock_timeout: timeouts.lockMs,
    query_timeout: timeouts.statementMs + UNANSWERED_GRACE_MS,
    // A server that vanished without a word (a host down, a cable pulled) is noticed by TCP itself.
    keepAlive: true,
  });
  const dialect = withFaultTranslation(new PostgresDialect({ pool: poolForKysely(pool, lease) }), postgresFault, condition);
  return { db: new Kysely<Database>({ dialect }), pool, lease };
}

/**
 * Migrates on one connection of its own, with no statement timeout (a migration
 * may rewrite a large table), holding the lock for exactly as long as the
 * migration: the lock is the connection's, so if this process dies, PostgreSQL
 * releases it.
 */
export async function migratePostgres(url: string): Promise<void> {
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  pool.on('connect', (client) => client.on('error', () => {}));
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  try {
    await sql`select pg_advisory_lock(${MIGRATION_LOCK})`.execute(db);
    await migrateToLatest(db);
  } finally {
    await db.destroy();
  }
}
