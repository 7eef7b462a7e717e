/**
 * A look inside a store, for tests and the contract gate's own service: what
 * was written beyond what the repositories return (hashes, digests, rows no
 * operation reads), and a way to plant rows as an older version stored them.
 * The service itself never uses it; `inspectStore` works on any store that
 * `openStore` opened.
 */
import type { Kysely, RawBuilder } from 'kysely';
import type { GroupCommit } from './database-traits.js';
import type { Store } from './repositories.js';
import type { Database } from './schema.js';

export type TableName = keyof Database;

export interface StoreInspection {
  readonly kind: 'sqlite' | 'postgres';
  /** Every row of one table as stored, secrets' digests and all, in primary-key order. */
  rows(table: TableName): Promise<Record<string, unknown>[]>;
  /** The names of the migrations applied, in order. */
  appliedMigrations(): Promise<string[]>;
  /** The group commit user updates go through, where they commit in groups (SQLite). */
  readonly commitGroup: GroupCommit | undefined;
  /** Runs one statement on the store's database and returns its rows. */
  execute<Row>(statement: RawBuilder<Row>): Promise<Row[]>;
}

/** Each table's primary key, for a stable order. */
const KEY_COLUMNS: Record<TableName, string[]> = {
  users: ['user_id'],
  groups: ['group_id'],
  user_groups: ['user_id', 'group_id'],
  api_keys: ['api_key'],
  username_reports: ['user_id'],
  audit_events: ['event_id'],
  user_attributes: ['user_id'],
};

const inspections = new WeakMap<Store, StoreInspection>();

/** Called by openStore for each store it opens. */
export function registerInspection(
  store: Store,
  db: Kysely<Database>,
  kind: StoreInspection['kind'],
  commitGroup: GroupCommit | undefined,
): void {
  // The table names are the schema's and fixed, so the dynamic references below name only those.
  const anyDb = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  inspections.set(store, {
    kind,
    commitGroup,
    async rows(table) {
      let query = anyDb.selectFrom(table).selectAll();
      for (const column of KEY_COLUMNS[table]) query = query.orderBy(column);
      return query.execute();
    },
    async appliedMigrations() {
      const rows = await anyDb.selectFrom('kysely_migration').select('name').orderBy('name').execute();
      return rows.map((row) => String(row.name));
    },
    async execute(statement) {
      return (await statement.execute(db)).rows;
    },
  });
}

export function inspectStore(store: Store): StoreInspection {
  const inspection = inspections.get(store);
  if (!inspection) throw new Error('inspectStore: not a store opened by openStore (a wrapped or stand-in store has nothing to inspect)');
  return inspection;
}
