/**
 * The embedded SQLite database (better-sqlite3). Every connection gets its
 * pragmas on open: a connection that does not set `synchronous` itself runs at
 * the library default, which would silently weaken durability.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import type { Database } from './schema.js';

/**
 * FULL: a transaction is on disk before its 200 is sent, even across a power
 * loss (NORMAL in WAL mode survives a process crash but may lose the last
 * commits on power loss).
 */
export const SQLITE_SYNCHRONOUS = 'FULL';

export function openSqliteConnection(path: string): BetterSqlite3.Database {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const connection = new BetterSqlite3(path);
  connection.pragma('journal_mode = WAL');
  connection.pragma(`synchronous = ${SQLITE_SYNCHRONOUS}`);
  connection.pragma('foreign_keys = ON');
  // Another process (the admin CLI) may hold the write lock for a moment.
  connection.pragma('busy_timeout = 5000');
  return connection;
}

export function openSqlite(path: string): Kysely<Database> {
  return new Kysely<Database>({ dialect: new SqliteDialect({ database: async () => openSqliteConnection(path) }) });
}
