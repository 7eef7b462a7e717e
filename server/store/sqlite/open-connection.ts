/**
 * Opens a connection to the embedded SQLite database (better-sqlite3). Every
 * connection gets its pragmas here, on open: a connection that does not set
 * `synchronous` itself runs at the library default, which would silently weaken
 * durability. Kept apart from the Kysely side (connection.ts) so that the
 * checkpoints' thread (checkpoint-thread.ts) opens its connection alike without
 * loading the rest.
 */
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { DEFAULT_DATABASE_TIMEOUTS } from '../timeouts.js';

/**
 * FULL: a transaction is on disk before its 200 is sent, even across a power
 * loss (NORMAL in WAL mode survives a process crash but may lose the last
 * commits on power loss).
 */
export const SQLITE_SYNCHRONOUS = 'FULL';

/**
 * Pages of the write-ahead log past which the commit that brings it there copies it into the
 * database file (`wal_autocheckpoint`; SQLite's default is 1,000). A copy writes each page once,
 * however many commits changed it since the last, and many of the pages a write changes are the
 * ones the writes before it changed too (the trail's last pages, the ends of its indexes): with
 * four times the log, those are copied a quarter as often. In four interleaved runs, update_user
 * at 50 connections answered 5–13 % more requests a second with 4,000 than with 1,000, and no
 * more with 16,000 than with 4,000 (BENCHMARKS.md). The log reaches 16 MB between copies, with
 * 4 KB pages.
 */
export const AUTOMATIC_CHECKPOINT_PAGES = 4_000;

/**
 * Creates the database's directory. A recursive mkdir reports ENOENT where
 * the real cause is a read-only or forbidden parent (EROFS, EACCES), so on
 * failure the nearest existing parent is asked for write access, and that
 * answer is the cause given.
 */
function createDirectory(directory: string): void {
  try {
    mkdirSync(directory, { recursive: true });
  } catch (error) {
    let parent = dirname(directory);
    while (!existsSync(parent) && dirname(parent) !== parent) parent = dirname(parent);
    let cause = error;
    try {
      accessSync(parent, constants.W_OK);
    } catch (accessError) {
      cause = accessError;
    }
    // eslint-disable-next-line preserve-caught-error -- mkdir's ENOENT hides the real cause, which the access check names.
    throw new Error(`cannot create the directory ${directory}`, { cause });
  }
}

/** Waiting for a lock another process holds blocks the event loop (the driver is synchronous): kept short. */
export function openSqliteConnection(path: string, lockTimeoutMs = DEFAULT_DATABASE_TIMEOUTS.lockMs): BetterSqlite3.Database {
  if (path !== ':memory:') createDirectory(dirname(path));
  const connection = new BetterSqlite3(path);
  connection.pragma('journal_mode = WAL');
  connection.pragma(`synchronous = ${SQLITE_SYNCHRONOUS}`);
  connection.pragma('foreign_keys = ON');
  connection.pragma(`wal_autocheckpoint = ${AUTOMATIC_CHECKPOINT_PAGES}`);
  // Another process (the admin CLI) may hold the write lock for a moment; past this, 503 database_busy.
  connection.pragma(`busy_timeout = ${Math.trunc(lockTimeoutMs)}`);
  return connection;
}
