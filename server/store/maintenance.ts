/**
 * What an operator does to the database beside the service (`npm run admin
 * -- status | migrate | backup | restore`, docs/operations.md): see where the
 * schema stands, apply pending migrations in a deploy pipeline, take a
 * consistent copy of a live SQLite database, and put one back.
 */
import { existsSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'kysely';
import { MIGRATION_NAMES } from './migrations.js';
import { openDatabase, type OpenedDatabase, sqlitePathOf } from './open-store.js';
import { present } from '../../lib/present.js';

/** The tables whose rows status counts, in the order it prints them. */
const COUNTED_TABLES = ['users', 'groups', 'user_groups', 'api_keys', 'user_attributes', 'audit_events'] as const;
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

async function statusOf({ db, name }: OpenedDatabase): Promise<SchemaStatus> {
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

/** What PostgreSQL's own tools do better than this one: back up and restore with them. */
const POSTGRES_BACKUP =
  'on PostgreSQL, back up and restore with its own tools, which copy a live database consistently: ' +
  'pg_dump --format=custom --file=workspace.dump "$DATABASE_URL", and ' +
  'pg_restore --clean --if-exists --dbname="$DATABASE_URL" workspace.dump (docs/operations.md, Backup and restore)';

function sqliteFileOf(databaseUrl: string): string {
  const file = sqlitePathOf(databaseUrl);
  if (file === undefined) throw new MaintenanceError(POSTGRES_BACKUP);
  if (file === ':memory:') throw new MaintenanceError('an in-memory database (sqlite::memory:) has nothing to back up or restore');
  return file;
}

export interface BackupSummary {
  file: string;
  status: SchemaStatus;
}

/**
 * A consistent copy of a live SQLite database. `VACUUM INTO` reads one
 * snapshot (WAL mode lets the service go on writing meanwhile) and writes a
 * compact, self-contained file: every write acknowledged before it began is
 * in the copy, and no write is half in it. A copy of the file itself would
 * miss what is still in the WAL, or catch a page mid-write.
 */
export async function backupDatabase(databaseUrl: string, file: string): Promise<BackupSummary> {
  const source = sqliteFileOf(databaseUrl);
  if (!existsSync(source)) throw new MaintenanceError(`there is no database at ${source} to back up`);
  if (existsSync(file)) throw new MaintenanceError(`${file} exists: a backup never overwrites a file; name a new one`);
  const connection = new BetterSqlite3(source, { readonly: true, fileMustExist: true, timeout: 5_000 });
  try {
    connection.prepare('VACUUM INTO ?').run(file);
  } finally {
    connection.close();
  }
  return { file, status: await schemaStatus(`sqlite:${file}`) };
}

/** Why `file` is not a backup this version can restore, or undefined when it is one. */
function notABackupBecause(file: string): string | undefined {
  let connection: BetterSqlite3.Database;
  try {
    connection = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
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

/**
 * Puts a backup in the place of DATABASE_URL's SQLite database, through
 * SQLite's backup API: the copy lands in one transaction, so a restore cut
 * short leaves the database as it was. Then migrates it, so that a backup
 * from an older version comes back at this version's schema. The service
 * must be stopped meanwhile (docs/operations.md).
 */
export async function restoreDatabase(file: string, databaseUrl: string): Promise<BackupSummary> {
  const target = sqliteFileOf(databaseUrl);
  if (!existsSync(file)) throw new MaintenanceError(`there is no file ${file}`);
  const refused = notABackupBecause(file);
  if (refused) throw new MaintenanceError(`${file} is not a backup to restore: ${refused}`);
  const backup = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    await backup.backup(target);
  } finally {
    backup.close();
  }
  const { status } = await migrateDatabase(databaseUrl);
  return { file: target, status };
}
