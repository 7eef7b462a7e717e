/**
 * A select run on SQLite's connection itself, outside Kysely: by the immediate reads
 * (connection.ts) and the grouped ones (read-group.ts). Its statement comes from the
 * connection's cache, and its faults are translated as every query's are.
 */
import type { CompiledQuery } from 'kysely';
import { readTranslated, type StoreCondition } from '../faults.js';
import type { CachingConnection } from './connection.js';
import { sqliteFault } from './faults.js';

/** The rows of `query`, which must be a select: a statement that writes is refused before it runs. */
export function selectOutsideKysely<R>(opened: CachingConnection, query: CompiledQuery<R>, condition: StoreCondition): R[] {
  return readTranslated(
    () => {
      const statement = opened.prepare(query.sql);
      if (!statement.reader) throw new TypeError(`a read outside Kysely runs selects only, not: ${query.sql}`);
      return statement.all(query.parameters) as R[];
    },
    sqliteFault,
    condition,
  );
}
