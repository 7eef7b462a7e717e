/**
 * Opens the store named by DATABASE_URL and brings its schema up to date.
 *   sqlite:<path>    an embedded SQLite file (the default: sqlite:data/workspace.db)
 *   sqlite::memory:  a private in-memory database, gone when the process ends
 */
import { resolve } from 'node:path';
import { SqliteError } from 'better-sqlite3';
import { KyselyStore } from './kysely-store.js';
import { migrateToLatest } from './migrations.js';
import { openSqlite } from './sqlite.js';

export class UnsupportedDatabaseError extends Error {}

const sqliteFlavour = {
  bool: (value: boolean) => (value ? 1 : 0),
  isUniqueViolation: (error: unknown) =>
    error instanceof SqliteError && (error.code === 'SQLITE_CONSTRAINT_UNIQUE' || error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'),
};

export async function openStore(databaseUrl: string): Promise<KyselyStore> {
  if (!databaseUrl.startsWith('sqlite:')) {
    throw new UnsupportedDatabaseError(
      `DATABASE_URL must be sqlite:<path> (for example sqlite:data/workspace.db), not "${databaseUrl.replace(/\/\/[^@/]*@/, '//***@')}"`,
    );
  }
  const path = databaseUrl.slice('sqlite:'.length);
  if (path === '') throw new UnsupportedDatabaseError('DATABASE_URL sqlite: needs a file path, such as sqlite:data/workspace.db');
  const store = new KyselyStore(openSqlite(path === ':memory:' ? path : resolve(path)), sqliteFlavour);
  try {
    await migrateToLatest(store.db);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
