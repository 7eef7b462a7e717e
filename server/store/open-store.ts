/**
 * Opens the store named by DATABASE_URL and brings its schema up to date.
 *   sqlite:<path>            an embedded SQLite file (the default: sqlite:data/workspace.db)
 *   sqlite::memory:          a private in-memory database, gone when the process ends
 *   postgres://user@host/db  PostgreSQL, which several instances can share
 */
import { resolve } from 'node:path';
import { type Kysely, sql } from 'kysely';
import { KyselyConsoleSessionRepository } from './console-session-repository.js';
import { KyselyApiKeyRepository } from './api-key-repository.js';
import { type AuditTrail, AuditWriter, KyselyAuditRepository } from './audit-repository.js';
import { KyselyWebhookRepository } from './webhook-repository.js';
import type { CommitMarks, DatabaseTraits, GroupedReads, ImmediateReads } from './database-traits.js';
import { StoreCondition, StoreUnavailableError } from './faults.js';
import { KyselyAttributesRepository } from './attributes-repository.js';
import { KyselyGroupRepository } from './group-repository.js';
import { KyselyIdempotencyRepository } from './idempotency-repository.js';
import { migrateToLatest } from './migrations.js';
import type { Store } from './repositories.js';
import type { Database } from './schema.js';
import { openSqlite } from './sqlite/connection.js';
import { sqliteTraits } from './sqlite/traits.js';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts } from './timeouts.js';
import { KyselyUserRepository } from './user-repository.js';

export class StoreOpenError extends Error {}

/** A URL fit for messages and logs: any password replaced. */
export const redactUrl = (url: string) => url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');

const timeoutsOf = (options: StoreOptions): DatabaseTimeouts => ({ ...DEFAULT_DATABASE_TIMEOUTS, ...options.timeouts });

function isPostgresUrl(url: string): boolean {
  return url.startsWith('postgres://') || url.startsWith('postgresql://');
}

export interface StoreOptions {
  /** How long to wait on the database before a request gets 503 (timeouts.ts); each defaults to DEFAULT_DATABASE_TIMEOUTS. */
  timeouts?: Partial<DatabaseTimeouts>;
  /** PostgreSQL: the connections of this instance's pool (DEFAULT_POOL_SIZE unless given). */
  poolSize?: number;
  /** Told the size of each group of updates committed together (SQLite), for metrics. */
  onGroupCommit?: (writes: number) => void;
}

/**
 * How long a write refused for want of space keeps the store not ready, when
 * nothing has succeeded since: long enough for a load balancer to notice, short
 * enough that traffic comes back to try once space has been freed.
 */
export const OUT_OF_SPACE_MEMORY_MS = 30_000;

/** The check behind readiness: the database answers a trivial query in time, and was not just found full. */
async function unreadyBecause(db: Kysely<Database>, condition: StoreCondition, withinMs: number): Promise<string | undefined> {
  if (condition.isFull(OUT_OF_SPACE_MEMORY_MS)) return 'the database is out of space';
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the database did not answer within ${withinMs} ms`), withinMs);
  });
  const ping = sql`select 1`.execute(db).then(
    () => undefined,
    (error: unknown) => (error instanceof StoreUnavailableError ? error.message : 'the database does not answer'),
  );
  try {
    return await Promise.race([ping, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a store is assembled from besides its database. */
export interface StoreParts {
  /** Where changes write their events: the audit_events table (AuditWriter) for the service. */
  audit: AuditTrail;
  /** Told the size of each group of updates committed together (SQLite), for metrics. */
  onGroupCommit?: (writes: number) => void;
}

/** The repositories over one opened database; openStore() assembles the service's. */
export function assembleStore(
  { db, traits, condition, stats, immediate, grouped, marks }: OpenedDatabase,
  { audit, onGroupCommit }: StoreParts,
): Store {
  return {
    users: new KyselyUserRepository(db, traits, audit, onGroupCommit, grouped),
    groups: new KyselyGroupRepository(db, traits, audit),
    attributes: new KyselyAttributesRepository(db, traits, audit),
    apiKeys: new KyselyApiKeyRepository(db, traits, audit, immediate, marks),
    consoleSessions: new KyselyConsoleSessionRepository(db),
    audit: new KyselyAuditRepository(db, traits),
    webhooks: new KyselyWebhookRepository(db, traits, audit),
    idempotency: new KyselyIdempotencyRepository(db),
    stats,
    unreadyBecause: (withinMs) => unreadyBecause(db, condition, withinMs),
    close: () => db.destroy(),
  };
}

/** Migrates the opened store; on failure closes it and names the database (the cause is what the operator acts on). */
async function migrated(store: Store, name: string, migrate: () => Promise<void>): Promise<Store> {
  try {
    await migrate();
  } catch (error) {
    await store.close().catch(() => {});
    throw new StoreOpenError(`cannot open ${name}`, { cause: error });
  }
  return store;
}

/** A database opened but not yet migrated: what the store is built over, and what the operator commands inspect. */
export interface OpenedDatabase {
  db: Kysely<Database>;
  traits: DatabaseTraits;
  condition: StoreCondition;
  /** Where it is, for messages: the file, or the URL without its password. */
  name: string;
  /** Applies the migrations it lacks (on PostgreSQL, under an advisory lock, so that instances starting together take turns). */
  migrate: () => Promise<void>;
  stats: Store['stats'];
  /** Reads that run at once, outside Kysely, where the database has them (SQLite's one connection, sqlite/connection.ts). */
  immediate?: ImmediateReads;
  /** Reads that run together, a turn's at the next, where the database has them (SQLite's one connection, sqlite/read-group.ts). */
  grouped?: GroupedReads;
  /** The marks of its commits, where the database keeps them readable without a transaction (SQLite's wal-index, sqlite/commit-marks.ts). */
  marks?: CommitMarks;
}

async function openPostgresDatabase(url: string, options: StoreOptions): Promise<OpenedDatabase> {
  // Loaded only when asked for: pg would add a twentieth to every SQLite start.
  const [{ migratePostgres, openPostgres }, { postgresTraits }] = await Promise.all([
    import('./postgres/connection.js'),
    import('./postgres/traits.js'),
  ]);
  const condition = new StoreCondition();
  const { db, pool, lease } = openPostgres(url, redactUrl(url), timeoutsOf(options), condition, options.poolSize);
  return {
    db,
    traits: postgresTraits,
    condition,
    name: redactUrl(url),
    // Not while a restore is under way: the lease first (postgres/lease.ts).
    migrate: async () => {
      await lease;
      await migratePostgres(url);
    },
    stats: () => ({ pool: { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount } }),
  };
}

/** The path DATABASE_URL names for SQLite (`sqlite:<path>`), resolved; undefined for PostgreSQL. */
export function sqlitePathOf(databaseUrl: string): string | undefined {
  if (isPostgresUrl(databaseUrl)) return undefined;
  if (!databaseUrl.startsWith('sqlite:')) {
    throw new StoreOpenError(
      `DATABASE_URL must be sqlite:<path> (for example sqlite:data/workspace.db) or postgres://…, not "${redactUrl(databaseUrl)}"`,
    );
  }
  const path = databaseUrl.slice('sqlite:'.length);
  if (path === '') throw new StoreOpenError('DATABASE_URL sqlite: needs a file path, such as sqlite:data/workspace.db');
  return path === ':memory:' ? path : resolve(path);
}

/**
 * Brings a SQLite database's schema up to date, and then, when a migration ran, copies the
 * write-ahead log into the file and empties it. SQLite copies the log only once it passes 1,000
 * pages: a new database's migrations left 1 MB of log beside a 4 KB file (232 KB once copied),
 * and a migration that rebuilds a table (0020) leaves a log the table's size, which the first
 * request's commit would otherwise copy, on the event loop.
 */
async function migrateSqlite(db: Kysely<Database>): Promise<void> {
  if ((await migrateToLatest(db)) > 0) await sql`pragma wal_checkpoint(TRUNCATE)`.execute(db);
}

/** Opens the database DATABASE_URL names, without migrating it. */
export async function openDatabase(databaseUrl: string, options: StoreOptions = {}): Promise<OpenedDatabase> {
  const file = sqlitePathOf(databaseUrl);
  if (file === undefined) return openPostgresDatabase(databaseUrl, options);
  const condition = new StoreCondition();
  const { db, immediate, grouped, marks } = openSqlite(file, timeoutsOf(options), condition);
  return {
    db,
    immediate,
    grouped,
    marks,
    traits: sqliteTraits,
    condition,
    name: `sqlite:${file}`,
    migrate: () => migrateSqlite(db),
    stats: () => ({}),
  };
}

/** The service's store over an opened database: changes audited to audit_events, the schema migrated to this version's. */
export function serviceStore(opened: OpenedDatabase, { onGroupCommit }: Pick<StoreOptions, 'onGroupCommit'> = {}): Promise<Store> {
  const parts = { audit: new AuditWriter(opened.db, opened.traits), ...(onGroupCommit ? { onGroupCommit } : {}) };
  // The cause (EACCES, SQLITE_READONLY, SQLITE_FULL …) is what the operator acts on: main prints the chain.
  return migrated(assembleStore(opened, parts), opened.name, opened.migrate);
}

/** The store over DATABASE_URL's database, migrated to this version's schema. */
export async function openStore(databaseUrl: string, options: StoreOptions = {}): Promise<Store> {
  return serviceStore(await openDatabase(databaseUrl, options), options);
}
