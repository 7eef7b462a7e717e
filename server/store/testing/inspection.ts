/**
 * A look inside a test's database: what was written beyond what the
 * repositories return (hashes, digests, rows no operation reads), and a way
 * to run a statement as an older version or a fault would. The service never
 * builds one; tests open their store with openInspectedStore (or
 * openTestStore), which gives the store and this view of the same database.
 */
import type { Kysely, RawBuilder } from 'kysely';
import type { OpenedDatabase } from '../open-store.js';
import type { Database } from '../schema.js';

export type TableName = keyof Database;

export interface StoreInspection {
  readonly kind: 'sqlite' | 'postgres';
  /** Every row of one table as stored, secrets' digests and all, in primary-key order. */
  rows(table: TableName): Promise<Record<string, unknown>[]>;
  /** A user's stored argon2id hash (null: no password set), undefined when there is no such user. */
  passwordHash(userId: string): Promise<string | null | undefined>;
  /** The names of the migrations applied, in order. */
  appliedMigrations(): Promise<string[]>;
  /** Runs one statement on the database and returns its rows. */
  execute<Row>(statement: RawBuilder<Row>): Promise<Row[]>;
}

/** Each table's primary key, for a stable order. */
export const TABLE_KEY_COLUMNS: Record<TableName, string[]> = {
  users: ['user_id'],
  groups: ['group_id'],
  user_groups: ['user_id', 'group_id'],
  api_keys: ['api_key'],
  username_reports: ['user_id'],
  audit_events: ['event_id'],
  user_attributes: ['user_id'],
  webhooks: ['webhook_id'],
  webhook_deliveries: ['delivery_id'],
  webhook_attempts: ['delivery_id', 'attempt'],
  webhook_dispatch: ['id'],
  password_history: ['user_id', 'set_at'],
  idempotency_keys: ['api_key', 'idempotency_key'],
  console_sessions: ['token_digest'],
  user_event_heads: ['user_id'],
  audit_positions: ['id'],
};

export function inspectDatabase({ db, traits }: Pick<OpenedDatabase, 'db' | 'traits'>): StoreInspection {
  // The table names are the schema's and fixed, so the dynamic references below name only those.
  const anyDb = db as unknown as Kysely<Record<string, Record<string, unknown>>>;
  return {
    kind: traits.kind,
    async passwordHash(userId) {
      const row = await db.selectFrom('users').select('password_hash').where('user_id', '=', userId).executeTakeFirst();
      return row?.password_hash;
    },
    async rows(table) {
      let query = anyDb.selectFrom(table).selectAll();
      for (const column of TABLE_KEY_COLUMNS[table]) query = query.orderBy(column);
      return query.execute();
    },
    async appliedMigrations() {
      const rows = await anyDb.selectFrom('kysely_migration').select('name').orderBy('name').execute();
      return rows.map((row) => String(row.name));
    },
    async execute(statement) {
      return (await statement.execute(db)).rows;
    },
  };
}
