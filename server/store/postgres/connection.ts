/**
 * PostgreSQL, for several service instances sharing one database. A pooled
 * Kysely; migrations run under a session-level advisory lock so that
 * instances starting together apply each migration exactly once.
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from '../migrations.js';
import type { Database } from '../schema.js';

/** Arbitrary but fixed: the advisory lock every instance takes to migrate. */
export const MIGRATION_LOCK = 7_316_400_512;
/** Connections per instance; a request holds one only for its statements. */
const POOL_SIZE = 10;

export function openPostgres(url: string): { db: Kysely<Database>; pool: pg.Pool } {
  const pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
  // An idle connection the server ends (a restart, an administrator) leaves the pool, which opens
  // another when one is needed. Without a listener, pg would throw that error out of the process.
  pool.on('error', () => {});
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), pool };
}

/**
 * Migrates with the lock held on a connection of its own, which lives exactly
 * as long as the migration: if this process dies, PostgreSQL releases the lock.
 */
export async function migratePostgres(url: string, db: Kysely<Database>): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migrateToLatest(db);
  } finally {
    await client.end();
  }
}
