/** What PostgreSQL does its own way (database-traits.ts). */
import { sql } from 'kysely';
import pg from 'pg';
import type { DatabaseTraits } from '../database-traits.js';

export const postgresTraits: DatabaseTraits = {
  kind: 'postgres',
  bool: (value) => value,
  isUniqueViolation: (error) => error instanceof pg.DatabaseError && error.code === '23505',
  serialize: async (trx, name) => {
    await sql`select pg_advisory_xact_lock(hashtext(${name}))`.execute(trx);
  },
  // Each update commits on its own, for two reasons. Correctness first: in PostgreSQL a failed
  // statement (a username already taken) aborts the whole transaction, so one refused update
  // would undo every other update of its group. And there is nothing to gain: the pool commits
  // on many connections at once, where SQLite's one connection waits for each fsync in turn.
  commitGroup: () => undefined,
  jsonPairs: (first, second, orderBy) => sql`coalesce(json_agg(json_build_array(${first}, ${second}) order by ${orderBy}), '[]'::json)`,
  fromJson: (value) => value,
};
