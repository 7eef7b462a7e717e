/** API keys on Kysely, for SQLite and PostgreSQL alike. Permissions are stored comma-separated. */
import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import type { AuditTrail } from './audit-repository.js';
import type { CommitMarks, DatabaseTraits, ImmediateReads } from './database-traits.js';
import { queryTemplate } from './query-template.js';
import { RememberedUntilCommit } from './remembered-until-commit.js';
import type { ApiKeyRecord, ChangeAuthor } from './records.js';
import type { ApiKeyChanges, ApiKeyRepository } from './repositories.js';
import type { ApiKeysTable, Database } from './schema.js';

export class KyselyApiKeyRepository implements ApiKeyRepository {
  /** Every authenticated request runs it: compiled once (query-template.ts). */
  readonly #findQuery: (apiKey: string) => CompiledQuery<Selectable<ApiKeysTable>>;
  /** Where the database's commits leave a mark (SQLite), a key found is answered again until the next commit. */
  readonly #remembered?: RememberedUntilCommit<ApiKeyRecord>;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly traits: DatabaseTraits,
    private readonly audit: AuditTrail,
    /** Where the database has them (SQLite), the key's read on every request skips Kysely's promises. */
    private readonly immediate?: ImmediateReads,
    marks?: CommitMarks,
  ) {
    this.#findQuery = queryTemplate(1, (apiKey: string) => db.selectFrom('api_keys').selectAll().where('api_key', '=', apiKey));
    if (marks) this.#remembered = new RememberedUntilCommit(marks);
  }

  async insert(key: ApiKeyRecord, by: ChangeAuthor): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('api_keys').values(toRow(key)).execute();
      await this.audit.record(trx, by, { operation: 'createApiKey', targetApiKey: key.api_key, changedFields: createdKeyFields(key) });
    });
  }

  async insertFirst(key: ApiKeyRecord, by: ChangeAuthor): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // Several instances may start on an empty database at once; exactly one creates the key.
      await this.traits.serialize(trx, 'first-api-key');
      if (await trx.selectFrom('api_keys').select('api_key').limit(1).executeTakeFirst()) return false;
      await trx.insertInto('api_keys').values(toRow(key)).execute();
      await this.audit.record(trx, by, { operation: 'createApiKey', targetApiKey: key.api_key, changedFields: createdKeyFields(key) });
      return true;
    });
  }

  async find(apiKey: string): Promise<ApiKeyRecord | undefined> {
    return this.#remembered ? this.#remembered.read(apiKey, () => this.#read(apiKey)) : this.#read(apiKey);
  }

  async #read(apiKey: string): Promise<ApiKeyRecord | undefined> {
    const query = this.#findQuery(apiKey);
    const [row] = this.immediate?.rows(query) ?? (await this.db.executeQuery(query)).rows;
    return row && frozen(fromRow(row));
  }

  async list(): Promise<ApiKeyRecord[]> {
    const rows = await this.db.selectFrom('api_keys').selectAll().orderBy('created').orderBy('api_key').execute();
    return rows.map(fromRow);
  }

  async revoke(apiKey: string, when: string, by: ChangeAuthor): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('api_keys')
        .set({ revoked: when })
        .where('api_key', '=', apiKey)
        .where('revoked', 'is', null)
        .executeTakeFirst();
      if (Number(result.numUpdatedRows) === 0) return false;
      await this.audit.record(trx, by, { operation: 'revokeApiKey', targetApiKey: apiKey, changedFields: ['revoked'] });
      return true;
    });
  }

  async noteUse(apiKey: string, when: string, since: string): Promise<void> {
    await this.db
      .updateTable('api_keys')
      .set({ last_used: when })
      .where('api_key', '=', apiKey)
      .where((row) => row.or([row('last_used', 'is', null), row('last_used', '<', since)]))
      .execute();
  }

  async update(apiKey: string, changes: ApiKeyChanges, by: ChangeAuthor): Promise<ApiKeyRecord | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx
        .updateTable('api_keys')
        .set({
          ...(changes.permissions ? { permissions: changes.permissions.join(',') } : {}),
          ...(changes.expires !== undefined ? { expires: changes.expires } : {}),
        })
        .where('api_key', '=', apiKey)
        .where('revoked', 'is', null)
        .returningAll()
        .executeTakeFirst();
      if (!row) return undefined;
      const changedFields = (['permissions', 'expires'] as const).filter((field) => changes[field] !== undefined);
      await this.audit.record(trx, by, { operation: 'updateApiKey', targetApiKey: apiKey, changedFields });
      return fromRow(row);
    });
  }
}

/** A new key's fields worth naming: never its secret or digest. */
function createdKeyFields(key: ApiKeyRecord): string[] {
  return ['name', 'permissions', ...(key.expires ? ['expires'] : [])];
}

function toRow(key: ApiKeyRecord): ApiKeysTable {
  return { ...key, permissions: key.permissions.join(',') };
}

/** A key as every request that names it shares it (remembered-until-commit.ts): unchangeable. */
function frozen(key: ApiKeyRecord): ApiKeyRecord {
  Object.freeze(key.permissions);
  return Object.freeze(key);
}

function fromRow(row: Selectable<ApiKeysTable>): ApiKeyRecord {
  return { ...row, permissions: row.permissions === '' ? [] : (row.permissions.split(',') as ApiKeyRecord['permissions']) };
}
