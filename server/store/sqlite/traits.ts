/** What SQLite does its own way (database-traits.ts). */
import { SqliteError } from 'better-sqlite3';
import { sql } from 'kysely';
import type { DatabaseTraits } from '../database-traits.js';
import { CommitGroup } from './commit-group.js';
import { IdempotencyKeyHeldError } from '../records.js';

const isUniqueViolation = (error: unknown) =>
  error instanceof SqliteError && (error.code === 'SQLITE_CONSTRAINT_UNIQUE' || error.code === 'SQLITE_CONSTRAINT_PRIMARYKEY');

export const sqliteTraits: DatabaseTraits = {
  kind: 'sqlite',
  bool: (value) => (value ? 1 : 0),
  isUniqueViolation,
  // One connection, and SQLite lets one writer in at a time.
  serialize: async () => {},
  // Every commit waits for an fsync, and the one connection waits with it: updates and new users that arrive
  // together commit together. A write refused (a username already taken, an Idempotency-Key
  // another request holds) is undone on its own savepoint, so the other writes of its group stand.
  commitGroup: (db, onCommit) =>
    new CommitGroup(db, (error) => isUniqueViolation(error) || error instanceof IdempotencyKeyHeldError, onCommit),
  // An aggregate's ORDER BY: SQLite 3.44 and later.
  jsonPairs: (first, second, orderBy) => sql`json_group_array(json_array(${first}, ${second}) order by ${orderBy})`,
  fromJson: (value): unknown => JSON.parse(value as string),
};
