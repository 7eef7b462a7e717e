/**
 * The embedded SQLite database (better-sqlite3) as Kysely uses it: one
 * connection (open-connection.ts), its statements cached, and the log of a
 * large commit copied into the database file off the event loop
 * (large-commits.ts); the reads that run on it at once (ImmediateReads) and those
 * that run together (read-group.ts), and the marks of its commits (commit-marks.ts).
 */
import BetterSqlite3 from 'better-sqlite3';
import { type CompiledQuery, type DatabaseConnection, type Driver, Kysely, SqliteDialect, SqliteDriver } from 'kysely';
import type { CommitMarks, GroupedReads, ImmediateReads } from '../database-traits.js';
import { type StoreCondition, withFaultTranslation } from '../faults.js';
import type { Database } from '../schema.js';
import type { DatabaseTimeouts } from '../timeouts.js';
import { walIndexMarks } from './commit-marks.js';
import { sqliteFault } from './faults.js';
import { openSqliteConnection } from './open-connection.js';
import { LargeCommits } from './large-commits.js';
import { ReadGroup } from './read-group.js';
import { selectOutsideKysely } from './select-outside-kysely.js';
import { holdSharedLease, type Lease } from './lease.js';

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
  /** Whether the connection is open (not yet closed). */
  readonly isOpen: boolean;
}

/** `held`: what the connection holds while it is open (its lease, the wal-index's file), released as it closes. */
export function withStatementCache(connection: BetterSqlite3.Database, size = STATEMENT_CACHE_SIZE, held: Lease[] = []): CachingConnection {
  return new StatementCachingConnection(connection, size, held);
}

/** A class, not an object literal, for its accessors (eslint.config.js). */
class StatementCachingConnection implements CachingConnection {
  readonly #statements = new Map<string, BetterSqlite3.Statement>();

  constructor(
    private readonly connection: BetterSqlite3.Database,
    private readonly size: number,
    private readonly held: Lease[],
  ) {}

  close(): void {
    this.connection.close();
    for (const what of this.held) what.release();
  }

  prepare(sql: string): BetterSqlite3.Statement {
    const statements = this.#statements;
    let statement = statements.get(sql);
    if (statement) {
      statements.delete(sql); // Re-inserted below: the Map's order is the recency order.
    } else {
      statement = this.connection.prepare(sql);
      if (statements.size >= this.size) {
        const oldest = statements.keys().next();
        if (!oldest.done) statements.delete(oldest.value);
      }
    }
    statements.set(sql, statement);
    return statement;
  }

  get cachedStatements(): number {
    return this.#statements.size;
  }

  get inTransaction(): boolean {
    return this.connection.inTransaction;
  }

  get isOpen(): boolean {
    return this.connection.open;
  }
}

/** The reads that run at once on the connection (../database-traits.ts, ImmediateReads). */
function immediateReads(connection: () => CachingConnection | undefined, condition: StoreCondition): ImmediateReads {
  return {
    rows<R>(query: CompiledQuery<R>): R[] | undefined {
      const opened = connection();
      if (!opened?.isOpen || opened.inTransaction) return undefined;
      return selectOutsideKysely(opened, query, condition);
    },
  };
}

/**
 * After some errors (a full disk, an I/O error) SQLite has already rolled the
 * transaction back itself. Kysely's ROLLBACK would then fail with "cannot
 * rollback - no transaction is active", and that error, thrown in place of
 * the original, is all the log would show. Here a rollback with no
 * transaction open is skipped, so the original error is the one reported.
 * A large transaction's commit leaves its checkpoint to a thread
 * (large-commits.ts), which stops before the connection closes, so that the
 * close checkpoints the log and removes it.
 */
class RollbackSafeSqliteDialect extends SqliteDialect {
  constructor(
    private readonly connection: () => CachingConnection | undefined,
    private readonly largeCommits: () => LargeCommits | undefined,
    private readonly config: ConstructorParameters<typeof SqliteDialect>[0],
  ) {
    super(config);
  }

  override createDriver(): Driver {
    const { connection, largeCommits } = this;
    return new (class extends SqliteDriver {
      override async beginTransaction(databaseConnection: DatabaseConnection): Promise<void> {
        await largeCommits()?.beforeBegin();
        await super.beginTransaction(databaseConnection);
        largeCommits()?.began();
      }

      override async commitTransaction(databaseConnection: DatabaseConnection): Promise<void> {
        const large = largeCommits()?.beforeCommit() ?? false;
        try {
          await super.commitTransaction(databaseConnection);
        } finally {
          largeCommits()?.afterCommit(large);
        }
      }

      override async rollbackTransaction(databaseConnection: DatabaseConnection): Promise<void> {
        if (connection()?.inTransaction === false) return;
        await super.rollbackTransaction(databaseConnection);
      }

      override async destroy(): Promise<void> {
        await largeCommits()?.stop();
        await super.destroy();
      }
    })(this.config);
  }
}

/** The database through Kysely, the reads that skip it, and the marks of its commits. */
export interface OpenedSqlite {
  db: Kysely<Database>;
  immediate: ImmediateReads;
  grouped: GroupedReads;
  marks: CommitMarks;
}

export function openSqlite(path: string, timeouts: DatabaseTimeouts, condition: StoreCondition): OpenedSqlite {
  let connection: CachingConnection | undefined;
  let largeCommits: LargeCommits | undefined;
  let walIndex: ReturnType<typeof walIndexMarks> | undefined;
  const database = async () => {
    const opened = openSqliteConnection(path, timeouts.lockMs);
    if (path === ':memory:') return (connection = withStatementCache(opened, STATEMENT_CACHE_SIZE));
    let lease: Lease;
    try {
      // Held while the database is open, so that `admin restore` knows (sqlite/lease.ts).
      lease = holdSharedLease(path, timeouts.lockMs);
    } catch (error) {
      opened.close();
      throw error;
    }
    largeCommits = new LargeCommits(path, opened, timeouts.lockMs);
    // Read only while this connection is open: SQLite keeps the `-shm` file as long as one is (commit-marks.ts).
    walIndex = walIndexMarks(path);
    const marks = walIndex;
    return (connection = withStatementCache(opened, STATEMENT_CACHE_SIZE, [lease, { release: () => marks.close() }]));
  };
  const dialect = new RollbackSafeSqliteDialect(
    () => connection,
    () => largeCommits,
    { database },
  );
  return {
    db: new Kysely<Database>({ dialect: withFaultTranslation(dialect, sqliteFault, condition) }),
    immediate: immediateReads(() => connection, condition),
    grouped: new ReadGroup(() => connection, condition),
    marks: { current: () => (connection?.isOpen ? walIndex?.current() : undefined) },
  };
}
