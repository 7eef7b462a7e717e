import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type DialectAdapter,
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresQueryCompiler,
  type QueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';
import { queryTemplate } from './query-template.js';
import type { Database } from './schema.js';

// Compiling needs a dialect, not a database.
const compilingOnly = (createAdapter: () => DialectAdapter, createQueryCompiler: () => QueryCompiler) =>
  new Kysely<Database>({
    dialect: {
      createAdapter,
      createQueryCompiler,
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => new SqliteIntrospector(db),
    },
  });
const dialects = {
  sqlite: compilingOnly(
    () => new SqliteAdapter(),
    () => new SqliteQueryCompiler(),
  ),
  postgres: compilingOnly(
    () => new PostgresAdapter(),
    () => new PostgresQueryCompiler(),
  ),
};

describe('query templates', () => {
  for (const [name, db] of Object.entries(dialects)) {
    it(`compile to what Kysely compiles for the same values (${name})`, () => {
      const update = (organization: unknown, locked: unknown, userId: unknown) =>
        db
          .updateTable('users')
          .set({ organization: organization as string, locked: locked as number })
          .where('user_id', '=', userId as string)
          .where('realm', '=', 'local')
          .returning(['user_id', 'organization']);
      const template = queryTemplate(3, update);
      const cases: [string, number, string][] = [
        ['Engineering', 1, 'a'.repeat(32)],
        ['Sales', 0, 'b'.repeat(32)],
      ];
      for (const values of cases) {
        const fromTemplate = template(...values);
        const fromKysely = update(...values).compile();
        assert.equal(fromTemplate.sql, fromKysely.sql);
        assert.deepEqual(fromTemplate.parameters, fromKysely.parameters);
      }
      const select = queryTemplate(1, (key: string) => db.selectFrom('api_keys').selectAll().where('api_key', '=', key));
      assert.deepEqual(select('k1').parameters, ['k1']);
      assert.notEqual(select('k1').queryId, select('k1').queryId);
    });
  }

  it('refuses a build that does not pass each argument as a value exactly once', () => {
    const db = dialects.sqlite;
    assert.throws(
      () => queryTemplate(2, (userId: string, _unused: string) => db.selectFrom('users').selectAll().where('user_id', '=', userId)),
      /argument 1 must appear exactly once/,
    );
    assert.throws(
      () =>
        queryTemplate(1, (userId: string) =>
          db.selectFrom('users').selectAll().where('user_id', '=', userId).where('username', '=', userId),
        ),
      /argument 0 must appear exactly once/,
    );
  });
});
