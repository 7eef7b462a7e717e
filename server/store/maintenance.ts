/**
 * What an operator does to the database beside the service (`npm run admin
 * -- status | migrate | backup | restore`, docs/operations.md): see where the
 * schema stands, apply pending migrations in a deploy pipeline, take a
 * consistent copy of a live SQLite database, and put one back.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, constants, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, sql, SqliteDialect } from 'kysely';
import pg from 'pg';
import type { Database } from './schema.js';
import { continueAfterRestore, positionReached } from './event-order.js';
import { DatabaseInUseError, type Lease, leaseFileOf, takeExclusiveLease } from './sqlite/lease.js';
import { MIGRATION_NAMES } from './migrations.js';
import { openDatabase, type OpenedDatabase, redactUrl, sqlitePathOf } from './open-store.js';
import { notAnArchiveBecause, type PostgresProgram, postgresProgram, rowsHeld, runPostgresProgram } from './postgres/dump.js';
import { takeExclusivePostgresLease } from './postgres/lease.js';
import { present } from '../../lib/present.js';
import { enforceGroupName, groupNameKey } from '../username/group-name.js';

/** The tables whose rows status counts, in the order it prints them. */
const COUNTED_TABLES = [
  'users',
  'groups',
  'user_groups',
  'api_keys',
  'user_attributes',
  'audit_events',
  'webhooks',
  'webhook_deliveries',
  'webhook_attempts',
] as const;
type CountedTable = (typeof COUNTED_TABLES)[number];

export interface SchemaStatus {
  database: string;
  /** This version's migrations the database has, in order. */
  applied: string[];
  /** This version's migrations it lacks: applied by `admin migrate` or the service's next start. */
  pending: string[];
  /** Migrations it has that this version does not know: a newer version made it. */
  unknown: string[];
  /** Rows per table, for the tables that exist. */
  counts: Partial<Record<CountedTable, number>>;
  /**
   * Groups whose names break the group-name profile or read as an older group's (kept as
   * they were by migration 0012, for a person to rename); empty before it.
   */
  groupNames: { group_id: string; name: string; reason: string }[];
  /** Users and groups that share an externalId with an older one (kept as they were by migration 0013); empty before it. */
  sharedExternalIds: { resource: 'user' | 'group'; id: string; external_id: string }[];
}

/** The users and groups whose externalId an older one of their kind held when migration 0013 ran. */
async function sharedExternalIds(db: OpenedDatabase['db']): Promise<SchemaStatus['sharedExternalIds']> {
  const users = await db
    .selectFrom('users')
    .select(['user_id as id', 'external_id'])
    .where('external_id', 'is not', null)
    .where('external_id_key', 'is', null)
    .execute();
  const groups = await db
    .selectFrom('groups')
    .select(['group_id as id', 'external_id'])
    .where('external_id', 'is not', null)
    .where('external_id_key', 'is', null)
    .execute();
  return [
    ...users.map((row) => ({ resource: 'user' as const, id: row.id, external_id: row.external_id ?? '' })),
    ...groups.map((row) => ({ resource: 'group' as const, id: row.id, external_id: row.external_id ?? '' })),
  ];
}

/** The groups whose stored names the group-name profile would not take as they are. */
async function groupNameReports(db: OpenedDatabase['db']): Promise<SchemaStatus['groupNames']> {
  const groups = await db.selectFrom('groups').select(['group_id', 'name', 'name_key']).orderBy('name').execute();
  const holders = new Map(groups.flatMap((group) => (group.name_key === null ? [] : [[group.name_key, group.group_id] as const])));
  return groups.flatMap(({ group_id, name, name_key }) => {
    const verdict = enforceGroupName(name);
    const reason = !verdict.ok
      ? verdict.reason
      : name_key === null
        ? `reads as the name of group ${holders.get(groupNameKey(name)) ?? 'another group'}`
        : verdict.name !== name
          ? 'holds spaces of another kind, surrounding spaces, or characters not in NFC'
          : undefined;
    return reason ? [{ group_id, name, reason }] : [];
  });
}

/** Refused: what the operator asked for cannot be done on this database or file. */
export class MaintenanceError extends Error {}

async function withDatabase<T>(databaseUrl: string, use: (opened: OpenedDatabase) => Promise<T>): Promise<T> {
  // A person or a pipeline is waiting, and the service holds the write lock only for moments: wait longer for it.
  const opened = await openDatabase(databaseUrl, { timeouts: { lockMs: 5_000 } });
  try {
    return await use(opened);
  } finally {
    await opened.db.destroy();
  }
}

async function statusOf({ db, name }: Pick<OpenedDatabase, 'db' | 'name'>): Promise<SchemaStatus> {
  const tables = new Set((await db.introspection.getTables({ withInternalKyselyTables: true })).map((table) => table.name));
  const recorded = tables.has('kysely_migration')
    ? (await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db)).rows.map((row) => row.name)
    : [];
  const counts: SchemaStatus['counts'] = {};
  for (const table of COUNTED_TABLES.filter((name) => tables.has(name))) {
    const { rows } = await sql<{ count: number | string }>`select count(*) as count from ${sql.table(table)}`.execute(db);
    counts[table] = Number(present(rows[0], `the count of ${table}`).count);
  }
  return {
    database: name,
    groupNames: recorded.includes('0012_group_name_keys') ? await groupNameReports(db) : [],
    sharedExternalIds: recorded.includes('0013_external_id_keys') ? await sharedExternalIds(db) : [],
    applied: MIGRATION_NAMES.filter((migration) => recorded.includes(migration)),
    pending: MIGRATION_NAMES.filter((migration) => !recorded.includes(migration)),
    unknown: recorded.filter((migration) => !MIGRATION_NAMES.includes(migration)),
    counts,
  };
}

/** Where the schema stands, without changing anything (nor creating a SQLite file that is not there). */
export function schemaStatus(databaseUrl: string): Promise<SchemaStatus> {
  const file = sqlitePathOf(databaseUrl);
  if (file !== undefined && file !== ':memory:' && !existsSync(file))
    throw new MaintenanceError(`there is no database at ${file} yet: the service, or \`admin migrate\`, creates it`);
  return withDatabase(databaseUrl, statusOf);
}

/** Applies the pending migrations and returns the ones applied, with the status after. */
export function migrateDatabase(databaseUrl: string): Promise<{ applied: string[]; status: SchemaStatus }> {
  return withDatabase(databaseUrl, async (opened) => {
    const before = await statusOf(opened);
    if (before.unknown.length > 0) {
      throw new MaintenanceError(
        `${opened.name} has migrations this version does not know (${before.unknown.join(', ')}): a newer version made it; run that version`,
      );
    }
    await opened.migrate();
    return { applied: before.pending, status: await statusOf(opened) };
  });
}

/** Where pg_dump and pg_restore come from, when neither is to be found. */
const POSTGRES_TOOLS =
  "on PostgreSQL, backup and restore run PostgreSQL's own pg_dump and pg_restore: install its client tools " +
  '(Debian: apt-get install postgresql-client), or run them yourself (docs/operations.md, Backup and restore)';

function sqliteFileOf(databaseUrl: string): string {
  const file = sqlitePathOf(databaseUrl);
  if (file === undefined) throw new Error('internal: a PostgreSQL URL reached the SQLite backup');
  if (file === ':memory:') throw new MaintenanceError('an in-memory database (sqlite::memory:) has nothing to back up or restore');
  return file;
}

export interface BackupSummary {
  file: string;
  status: SchemaStatus;
}

/**
 * The status of a SQLite file read as it is: read-only, in whatever journal
 * mode it has, so that looking at a backup neither changes it nor leaves
 * `-wal` and `-shm` files beside it (as opening it as the service does would).
 */
async function statusOfFile(file: string): Promise<SchemaStatus> {
  const db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: new BetterSqlite3(file, { readonly: true, fileMustExist: true }) }),
  });
  try {
    return await statusOf({ db, name: `sqlite:${file}` });
  } finally {
    await db.destroy();
  }
}

/** Forces a file's (or a directory's) content to disk, so that a rename after it cannot outlive the data it names. */
function syncToDisk(path: string): void {
  const descriptor = openSync(path, 'r');
  try {
    fsyncSync(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/**
 * A consistent copy of a live SQLite database. `VACUUM INTO` reads one
 * snapshot (WAL mode lets the service go on writing meanwhile) and writes a
 * compact, self-contained file: every write acknowledged before it began is
 * in the copy, and no write is half in it. A copy of the file itself would
 * miss what is still in the WAL, or catch a page mid-write.
 *
 * The copy holds every user, hash and key digest: it is created readable by
 * its owner alone (0600), before SQLite writes a byte into it, and never over
 * an existing file (`wx`).
 */
export async function backupDatabase(databaseUrl: string, file: string): Promise<BackupSummary> {
  if (sqlitePathOf(databaseUrl) === undefined) return backupPostgres(databaseUrl, file);
  const source = sqliteFileOf(databaseUrl);
  if (!existsSync(source)) throw new MaintenanceError(`there is no database at ${source} to back up`);
  createPrivately(file);
  try {
    const connection = new BetterSqlite3(source, { readonly: true, fileMustExist: true, timeout: 5_000 });
    try {
      connection.prepare('VACUUM INTO ?').run(file);
    } finally {
      connection.close();
    }
  } catch (error) {
    rmSync(file, { force: true });
    throw error;
  }
  return { file, status: await statusOfFile(file) };
}

/** Creates the backup's file, empty, readable by its owner alone; never over an existing one. */
function createPrivately(file: string): void {
  try {
    closeSync(openSync(file, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      throw new MaintenanceError(`${file} exists: a backup never overwrites a file; name a new one`);
    throw new MaintenanceError(`cannot create ${file}: ${(error as Error).message}`);
  }
}

function postgresTool(name: PostgresProgram): string {
  const program = postgresProgram(name);
  if (!program) throw new MaintenanceError(`there is no ${name} here: ${POSTGRES_TOOLS}`);
  return program;
}

/** pg_dump's custom format: one consistent snapshot of the live database, compressed, which pg_restore reads. */
async function backupPostgres(databaseUrl: string, file: string): Promise<BackupSummary> {
  const program = postgresTool('pg_dump');
  createPrivately(file);
  try {
    await runPostgresProgram(program, ['--format=custom', `--file=${file}`], databaseUrl);
  } catch (error) {
    rmSync(file, { force: true });
    throw new MaintenanceError(`pg_dump failed: ${(error as Error).message}`);
  }
  return { file, status: await schemaStatus(databaseUrl) };
}

/**
 * pg_restore of a pg_dump archive, in one transaction, refused while any
 * instance has the database open (postgres/lease.ts) and, without `force`,
 * when the database holds rows. Then migrated, once the lease is let go.
 */
async function restorePostgres(file: string, databaseUrl: string, force: boolean): Promise<BackupSummary> {
  const program = postgresTool('pg_restore');
  const name = redactUrl(databaseUrl);
  const refused = notAnArchiveBecause(program, file);
  if (refused) throw new MaintenanceError(`${file} is not a backup to restore: ${refused}`);
  let lease: Lease;
  try {
    lease = await takeExclusivePostgresLease(databaseUrl, name);
  } catch (error) {
    if (error instanceof DatabaseInUseError) throw new MaintenanceError(`cannot restore: ${error.message}`);
    throw error;
  }
  let reached: number;
  try {
    const replaced = await rowsHeld(databaseUrl, COUNTED_TABLES);
    if (replaced && !force) {
      throw new MaintenanceError(
        `${name} is not empty (${replaced}): restoring replaces all of it with ${file}. ` +
          'Back it up first if any of it matters, then run restore again with --force',
      );
    }
    reached = await positionReachedOnPostgres(databaseUrl);
    await runPostgresProgram(
      program,
      ['--clean', '--if-exists', '--single-transaction', '--no-owner', '--no-privileges', '--exit-on-error', file],
      databaseUrl,
    ).catch((error: unknown) => {
      throw new MaintenanceError(`pg_restore failed, and the database is as it was: ${(error as Error).message}`);
    });
  } finally {
    lease.release();
  }
  await migrateDatabase(databaseUrl);
  const status = await withDatabase(databaseUrl, async (opened) => {
    await continueAfterRestore(opened.db, opened.traits.kind, reached, new Date().toISOString());
    return statusOf(opened);
  });
  return { file: name, status };
}

/** The same for the PostgreSQL database a restore replaces, read while the restore holds it. */
async function positionReachedOnPostgres(databaseUrl: string): Promise<number> {
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: databaseUrl, max: 1 }) }) });
  try {
    return await positionReached(db, 'postgres');
  } finally {
    await db.destroy();
  }
}

/** Why `file` is not a backup this version can restore, or undefined when it is one. */
function notABackupBecause(file: string): string | undefined {
  let connection: BetterSqlite3.Database;
  try {
    connection = new BetterSqlite3(file, { fileMustExist: true });
  } catch (error) {
    return (error as Error).message;
  }
  try {
    const integrity = connection.pragma('quick_check', { simple: true });
    if (integrity !== 'ok') return `it fails SQLite's integrity check (${String(integrity)})`;
    const tables = connection.prepare("select name from sqlite_master where type = 'table'").pluck().all() as string[];
    if (!tables.includes('kysely_migration') || !tables.includes('users')) return 'it is not a workspace-user-api database';
    const migrations = connection.prepare('select name from kysely_migration').pluck().all() as string[];
    const unknown = migrations.filter((migration) => !MIGRATION_NAMES.includes(migration));
    if (unknown.length > 0) return `a newer version made it (migrations ${unknown.join(', ')}); restore it with that version`;
    return undefined;
  } catch (error) {
    // "file is not a database" comes on the first read, not on open.
    return (error as Error).message;
  } finally {
    connection.close();
  }
}

/** Brings a database's write-ahead log into the file and leaves it in rollback mode: one file, readable without sidecars. */
function selfContained(file: string): void {
  const connection = new BetterSqlite3(file, { fileMustExist: true });
  try {
    connection.pragma('journal_mode = DELETE');
  } finally {
    connection.close();
  }
}

/** What restoring over `target` would throw away, for the refusal that asks for --force; undefined when there is nothing. */
async function whatWouldBeReplaced(target: string): Promise<string | undefined> {
  if (!existsSync(target)) return undefined;
  try {
    const { counts } = await statusOfFile(target);
    const held = Object.entries(counts)
      .filter(([, count]) => count > 0)
      .map(([table, count]) => `${count} ${table}`);
    return held.length > 0 ? `it holds ${held.join(', ')}` : undefined;
  } catch (error) {
    return `it exists, and cannot be read (${(error as Error).message})`;
  }
}

/**
 * The last position the events of the database a restore replaces had reached (event-order.ts):
 * 0 where there is none, or none that can be read (a file only `--force` replaces).
 */
async function positionReachedByFile(target: string): Promise<number> {
  if (!existsSync(target)) return 0;
  let db: Kysely<Database> | undefined;
  try {
    db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new BetterSqlite3(target, { readonly: true, fileMustExist: true }) }),
    });
    return await positionReached(db, 'sqlite');
  } catch {
    return 0;
  } finally {
    await db?.destroy();
  }
}

/** SQLite's files beside a database: its write-ahead log, that log's index, a rollback journal. */
const sidecarsOf = (file: string) => [`${file}-wal`, `${file}-shm`, `${file}-journal`];

/**
 * Puts a backup in the place of DATABASE_URL's SQLite database. Refused while
 * anything has the database open (the service, another admin command: see
 * sqlite/lease.ts), and, without `force`, when the database already holds
 * rows that the backup would replace.
 *
 * The backup itself is never opened for writing: it is copied beside the
 * database, checked and migrated there (a backup from an older version comes
 * back at this version's schema), made durable, and renamed over the
 * database in one step, after the old database's write-ahead log is removed
 * (a stale log must never be replayed onto the restored file). A restore cut
 * short leaves the database as it was. The order of events goes on from where
 * the replaced database's had reached (event-order.ts).
 */
export async function restoreDatabase(file: string, databaseUrl: string, { force = false } = {}): Promise<BackupSummary> {
  if (!existsSync(file)) throw new MaintenanceError(`there is no file ${file}`);
  if (sqlitePathOf(databaseUrl) === undefined) return restorePostgres(file, databaseUrl, force);
  const target = sqliteFileOf(databaseUrl);
  mkdirSync(dirname(target), { recursive: true });
  let lease: Lease;
  try {
    lease = takeExclusiveLease(target);
  } catch (error) {
    if (error instanceof DatabaseInUseError) throw new MaintenanceError(`cannot restore: ${error.message}`);
    throw error;
  }
  const staging = `${target}.restoring-${randomBytes(4).toString('hex')}`;
  try {
    copyFileSync(file, staging, constants.COPYFILE_EXCL);
    chmodSync(staging, 0o600);
    const refused = notABackupBecause(staging);
    if (refused) throw new MaintenanceError(`${file} is not a backup to restore: ${refused}`);
    const replaced = await whatWouldBeReplaced(target);
    if (replaced && !force) {
      throw new MaintenanceError(
        `${target} is not empty (${replaced}): restoring replaces all of it with ${file}. ` +
          'Back it up first if any of it matters, then run restore again with --force',
      );
    }
    const reached = await positionReachedByFile(target);
    await migrateDatabase(`sqlite:${staging}`);
    await withDatabase(`sqlite:${staging}`, ({ db, traits }) => continueAfterRestore(db, traits.kind, reached, new Date().toISOString()));
    selfContained(staging);
    syncToDisk(staging);
    for (const sidecar of sidecarsOf(target)) rmSync(sidecar, { force: true });
    renameSync(staging, target);
    syncToDisk(dirname(target));
  } finally {
    for (const leftover of [staging, ...sidecarsOf(staging), leaseFileOf(staging)]) rmSync(leftover, { force: true });
    lease.release();
  }
  return { file: target, status: await statusOfFile(target) };
}
