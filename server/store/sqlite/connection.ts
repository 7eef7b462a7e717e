/**
 * The embedded SQLite database (better-sqlite3). Every connection gets its
 * pragmas on open: a connection that does not set `synchronous` itself runs at
 * the library default, which would silently weaken durability.
 */
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { type DatabaseConnection, type Driver, Kysely, SqliteDialect, SqliteDriver } from 'kysely';
import { type StoreCondition, withFaultTranslation } from '../faults.js';
import type { Database } from '../schema.js';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from '../timeouts.js';
import { sqliteFault } from './faults.js';
import { holdSharedLease, type Lease } from './lease.js';

/**
 * FULL: a transaction is on disk before its 200 is sent, even across a power
 * loss (NORMAL in WAL mode survives a process crash but may lose the last
 * commits on power loss).
 */
export const SQLITE_SYNCHRONOUS = 'FULL';

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
  // Another process (the admin CLI) may hold the write lock for a moment; past this, 503 database_busy.
  connection.pragma(`busy_timeout = ${Math.trunc(lockTimeoutMs)}`);
  return connection;
}

/** Distinct statements the service issues are few; this bounds the cache even for varied `in (…)` lists. */
export const STATEMENT_CACHE_SIZE = 256;

/**
 * Kysely prepares every query anew, which the profile of update_user showed
 * costing about a tenth of its CPU time. A better-sqlite3 statement can be run
 * again and again, and Kysely's SQLite driver runs one at a time on its one
 * connection, so the most recently used statements are kept, by SQL text.
 */
/** The connection as Kysely's SQLite dialect uses it, preparing through the cache. */
export interface CachingConnection {
  close(): void;
  prepare(sql: string): BetterSqlite3.Statement;
  readonly cachedStatements: number;
  /** Whether a transaction is open on the connection. */
  readonly inTransaction: boolean;
}

export function withStatementCache(connection: BetterSqlite3.Database, size = STATEMENT_CACHE_SIZE, lease?: Lease): CachingConnection {
  const statements = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => {
      connection.close();
      lease?.release();
    },
    prepare(sql: string): BetterSqlite3.Statement {
      let statement = statements.get(sql);
      if (statement) {
        statements.delete(sql); // Re-inserted below: the Map's order is the recency order.
      } else {
        statement = connection.prepare(sql);
        if (statements.size >= size) {
          const oldest = statements.keys().next();
          if (!oldest.done) statements.delete(oldest.value);
        }
      }
      statements.set(sql, statement);
      return statement;
    },
    get cachedStatements() {
      return statements.size;
    },
    get inTransaction() {
      return connection.inTransaction;
    },
  };
}

/**
 * After some errors (a full disk, an I/O error) SQLite has already rolled the
 * transaction back itself. Kysely's ROLLBACK would then fail with "cannot
 * rollback - no transaction is active", and that error, thrown in place of
 * the original, is all the log would show. Here a rollback with no
 * transaction open is skipped, so the original error is the one reported.
 */
class RollbackSafeSqliteDialect extends SqliteDialect {
  constructor(
    private readonly connection: () => CachingConnection | undefined,
    private readonly config: ConstructorParameters<typeof SqliteDialect>[0],
  ) {
    super(config);
  }

  override createDriver(): Driver {
    const connection = this.connection;
    return new (class extends SqliteDriver {
      override async rollbackTransaction(databaseConnection: DatabaseConnection): Promise<void> {
        if (connection()?.inTransaction === false) return;
        await super.rollbackTransaction(databaseConnection);
      }
    })(this.config);
  }
}

export function openSqlite(path: string, timeouts: DatabaseTimeouts, condition: StoreCondition): Kysely<Database> {
  let connection: CachingConnection | undefined;
  const database = async () => {
    const opened = openSqliteConnection(path, timeouts.lockMs);
    let lease: Lease | undefined;
    try {
      // Held while the database is open, so that `admin restore` knows (sqlite/lease.ts).
      if (path !== ':memory:') lease = holdSharedLease(path, timeouts.lockMs);
    } catch (error) {
      opened.close();
      throw error;
    }
    return (connection = withStatementCache(opened, STATEMENT_CACHE_SIZE, lease));
  };
  const dialect = new RollbackSafeSqliteDialect(() => connection, { database });
  return new Kysely<Database>({ dialect: withFaultTranslation(dialect, sqliteFault, condition) });
}
