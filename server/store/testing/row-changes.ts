/**
 * Counts the rows written to chosen tables, for tests that must show a request
 * changed nothing stored (the contract gate's fuzz and hostile corpus, after
 * every request). Reading and hashing every row after each request grew with
 * the database, which those checks fill: thousands of requests cost half a
 * minute. Triggers here note each row inserted, updated or deleted in a log of
 * their own, within the writing transaction, so a write that rolls back leaves
 * no note, and the log's highest id says whether anything was written since.
 * Only test databases get them (the gate's own target); the service never does.
 */
import { sql } from 'kysely';
import type { StoreInspection, TableName } from './inspection.js';

const LOG = 'test_row_changes';

export interface RowChanges {
  /** Rises with every row written to a watched table that stays written. */
  count(): Promise<number>;
}

/**
 * Watches `tables` for inserts, deletes and updates of any column but those in
 * `ignoredColumns` (a key's last use, which every authenticated request may note).
 */
export async function watchRowChanges(
  inspection: StoreInspection,
  tables: readonly TableName[],
  ignoredColumns: readonly string[] = [],
): Promise<RowChanges> {
  const postgres = inspection.kind === 'postgres';
  await inspection.execute(
    postgres
      ? sql`CREATE TABLE ${sql.raw(LOG)} (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY)`
      : sql`CREATE TABLE ${sql.raw(LOG)} (id INTEGER PRIMARY KEY)`,
  );
  if (postgres) {
    await inspection.execute(
      sql`CREATE FUNCTION ${sql.raw(LOG)}_note() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO ${sql.raw(LOG)} DEFAULT VALUES; RETURN NULL; END $$`,
    );
  }
  for (const table of tables) {
    const columns = (await columnsOf(inspection, table)).filter((column) => !ignoredColumns.includes(column));
    const events = { insert: 'INSERT', delete: 'DELETE', update: `UPDATE OF ${columns.map((column) => `"${column}"`).join(', ')}` };
    for (const [name, event] of Object.entries(events)) {
      const trigger = `${LOG}_${table}_${name}`;
      await inspection.execute(
        postgres
          ? sql`CREATE TRIGGER ${sql.raw(trigger)} AFTER ${sql.raw(event)} ON ${sql.raw(table)}
              FOR EACH ROW EXECUTE FUNCTION ${sql.raw(LOG)}_note()`
          : sql`CREATE TRIGGER ${sql.raw(trigger)} AFTER ${sql.raw(event)} ON ${sql.raw(table)}
              BEGIN INSERT INTO ${sql.raw(LOG)} (id) VALUES (NULL); END`,
      );
    }
  }
  return {
    async count() {
      const [row] = await inspection.execute(sql<{ last: number | string | null }>`SELECT max(id) AS last FROM ${sql.raw(LOG)}`);
      return Number(row?.last ?? 0);
    },
  };
}

async function columnsOf(inspection: StoreInspection, table: TableName): Promise<string[]> {
  const rows =
    inspection.kind === 'postgres'
      ? await inspection.execute(
          sql<{ name: string }>`SELECT column_name AS name FROM information_schema.columns
            WHERE table_schema = current_schema() AND table_name = ${table}`,
        )
      : await inspection.execute(sql<{ name: string }>`SELECT name FROM pragma_table_info(${table})`);
  return rows.map((row) => row.name);
}
