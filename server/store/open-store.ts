/**
 * Opens the store named by DATABASE_URL and brings its schema up to date.
 *   sqlite:<path>            an embedded SQLite file (the default: sqlite:data/workspace.db)
 *   sqlite::memory:          a private in-memory database, gone when the process ends
 *   postgres://user@host/db  PostgreSQL, which several instances can share
 */
import { resolve } from 'node:path';
import { SqliteError } from 'better-sqlite3';
import { KyselyStore, type Flavour } from './kysely-store.js';
import { migrateToLatest } from './migrations.js';
import { openSqlite } from './sqlite.js';

export class StoreOpenError extends Error {}

const sqliteFlavour: Flavour = {
  bool: (value) => (value ? 1 : 0),
  isUniqueViolation: (error) =>
    error instanceof SqliteError && (error.code === 'SQLITE_CONSTRAINT_UNIQUE' || error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'),
  // One connection, and SQLite lets one writer in at a time.
  serialize: async () => {},
  groupCommits: true,
};

/** A URL fit for messages and logs: any password replaced. */
export const redactUrl = (url: string) => url.replace(/\/\/([^:@/]*):[^@/]*@/, '//$1:***@');

function isPostgresUrl(url: string): boolean {
  return url.startsWith('postgres://') || url.startsWith('postgresql://');
}

async function openPostgresStore(url: string): Promise<KyselyStore> {
  // Loaded only when asked for: pg would add a twentieth to every SQLite start.
  const { migratePostgres, openPostgres, postgresFlavour } = await import('./postgres.js');
  const store = new KyselyStore(openPostgres(url), postgresFlavour);
  try {
    await migratePostgres(url, store.db);
  } catch (error) {
    await store.close().catch(() => {});
    throw new StoreOpenError(`cannot open ${redactUrl(url)}`, { cause: error });
  }
  return store;
}

export async function openStore(databaseUrl: string): Promise<KyselyStore> {
  if (isPostgresUrl(databaseUrl)) return openPostgresStore(databaseUrl);
  if (!databaseUrl.startsWith('sqlite:')) {
    throw new StoreOpenError(
      `DATABASE_URL must be sqlite:<path> (for example sqlite:data/workspace.db) or postgres://…, not "${redactUrl(databaseUrl)}"`,
    );
  }
  const path = databaseUrl.slice('sqlite:'.length);
  if (path === '') throw new StoreOpenError('DATABASE_URL sqlite: needs a file path, such as sqlite:data/workspace.db');
  const file = path === ':memory:' ? path : resolve(path);
  const store = new KyselyStore(openSqlite(file), sqliteFlavour);
  try {
    await migrateToLatest(store.db);
  } catch (error) {
    await store.close().catch(() => {});
    // The cause (EACCES, SQLITE_READONLY, SQLITE_FULL …) is what the operator acts on: main prints the chain.
    throw new StoreOpenError(`cannot open sqlite:${file}`, { cause: error });
  }
  return store;
}
