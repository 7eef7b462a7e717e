/**
 * The Store on Kysely. Written against what SQLite and PostgreSQL share, so
 * one implementation serves both; the few differences sit in `Flavour`.
 */
import { sql, type CompiledQuery, type Kysely, type Selectable, type SelectQueryBuilder, type Transaction } from 'kysely';
import type { ApiKeyRecord } from '../auth/api-keys.js';
import type { Permission } from '../contract.js';
import type { Database, UsersTable } from './schema.js';
import {
  NameTakenError,
  type Group,
  type MembershipChange,
  type NewUserRecord,
  type Store,
  type User,
  type UserChanges,
  type UserListing,
  type UserQuery,
  type UsernameReport,
} from './store.js';
import { CommitGroup } from './commit-group.js';
import { ALL_USERS_GROUP } from './migrations.js';
import { queryTemplate } from './query-template.js';

export interface Flavour {
  /** How a boolean is bound: SQLite takes 0/1, PostgreSQL true/false. */
  bool(value: boolean): number | boolean;
  /** Whether an error is a unique-constraint violation. */
  isUniqueViolation(error: unknown): boolean;
  /**
   * Makes concurrent transactions that call it run one at a time, where the
   * database would otherwise let them interleave (PostgreSQL; SQLite has a
   * single writer already).
   */
  serialize(trx: Transaction<Database>, name: string): Promise<void>;
  /**
   * Whether updates commit in groups (commit-group.ts): on SQLite's one
   * connection each commit's fsync holds up everything else; PostgreSQL
   * commits on many connections at once.
   */
  groupCommits: boolean;
}

type Db = Kysely<Database> | Transaction<Database>;

const USER_COLUMNS = [
  'user_id',
  'username',
  'first_name',
  'last_name',
  'phone',
  'organization',
  'locked',
  'disabled',
  'realm',
  'created',
  'password_set_date',
  'last_session',
] as const;

type UserRow = Pick<Selectable<UsersTable>, (typeof USER_COLUMNS)[number]>;

export class KyselyStore implements Store {
  /** Present when the flavour groups commits. */
  readonly commitGroup: CommitGroup | undefined;

  /** The queries every authenticated request or update runs, compiled once (query-template.ts). */
  readonly #apiKeyQuery: (apiKey: string) => CompiledQuery<Selectable<Database['api_keys']>>;
  readonly #membershipsOfOneQuery: (userId: string) => CompiledQuery<MembershipRow>;
  readonly #userByQuery: Record<'user_id' | 'username', (value: string) => CompiledQuery<UserRow>>;
  /** update_user's query for each set of columns changed, by their names. */
  readonly #updateQueries = new Map<string, (...values: unknown[]) => CompiledQuery<UserRow>>();

  constructor(
    readonly db: Kysely<Database>,
    private readonly flavour: Flavour,
  ) {
    this.commitGroup = flavour.groupCommits ? new CommitGroup(db, (error) => flavour.isUniqueViolation(error)) : undefined;
    this.#apiKeyQuery = queryTemplate(1, (apiKey: string) => db.selectFrom('api_keys').selectAll().where('api_key', '=', apiKey));
    this.#membershipsOfOneQuery = queryTemplate(1, (userId: string) => membershipsQuery(db, [userId]));
    const userBy = (column: 'user_id' | 'username') =>
      queryTemplate(1, (value: string) => db.selectFrom('users').select(USER_COLUMNS).where(column, '=', value));
    this.#userByQuery = { user_id: userBy('user_id'), username: userBy('username') };
  }

  async listUsers({ pageSize, sortBy, sortDirection, start, countTotal = true }: UserQuery): Promise<UserListing> {
    // One user more than the page tells whether another follows it.
    const inOrder = <Q extends SelectQueryBuilder<Database, 'users', unknown>>(query: Q) =>
      query
        .orderBy(sortBy, sortDirection)
        .orderBy('user_id', sortDirection)
        .limit(pageSize + 1) as Q;
    let rows: UserRow[];
    if ('after' in start) {
      // A page after a position seeks straight to it in the sort column's index.
      const { value, userId } = start.after;
      rows = await inOrder(this.db.selectFrom('users').select(USER_COLUMNS))
        .where((eb) => eb(eb.refTuple(sortBy, 'user_id'), sortDirection === 'asc' ? '>' : '<', eb.tuple(value, userId)))
        .execute();
    } else {
      // The page's ids come from the index alone, so the rows a deep OFFSET skips are never
      // read, only the page's own (twice as fast at 50,000 rows deep).
      const pageIds = inOrder(this.db.selectFrom('users').select('user_id')).offset(start.skip);
      rows = await this.db
        .selectFrom('users')
        .select(USER_COLUMNS)
        .where('user_id', 'in', pageIds)
        .orderBy(sortBy, sortDirection)
        .orderBy('user_id', sortDirection)
        .execute();
    }
    const { total } = countTotal
      ? await this.db
          .selectFrom('users')
          .select((eb) => eb.fn.countAll<number | string>().as('total'))
          .executeTakeFirstOrThrow()
      : { total: -1 };
    const more = rows.length > pageSize;
    return { users: await this.#withGroups(this.db, more ? rows.slice(0, pageSize) : rows), total: Number(total), more };
  }

  async findUserById(userId: string): Promise<User | undefined> {
    return this.#findUser(this.db, 'user_id', userId);
  }

  async findUserByUsername(username: string): Promise<User | undefined> {
    return this.#findUser(this.db, 'username', username);
  }

  async createUser(user: NewUserRecord): Promise<User> {
    return this.#unique('username', () =>
      this.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('users')
          .values({
            ...user,
            locked: this.flavour.bool(user.locked),
            disabled: this.flavour.bool(user.disabled),
            password_set_date: user.password_hash ? user.created : null,
            last_session: null,
          })
          .execute();
        await trx
          .insertInto('user_groups')
          .columns(['user_id', 'group_id'])
          .expression((eb) =>
            eb.selectFrom('groups').select([eb.val(user.user_id).as('user_id'), 'group_id']).where('name', '=', ALL_USERS_GROUP),
          )
          .execute();
        return (await this.#findUser(trx, 'user_id', user.user_id))!;
      }),
    );
  }

  async updateUser(userId: string, changes: UserChanges): Promise<User | undefined> {
    // Name each column on purpose rather than spreading `changes`: only these can ever be written.
    const values = {
      username: changes.username,
      first_name: changes.first_name,
      last_name: changes.last_name,
      phone: changes.phone,
      organization: changes.organization,
      locked: changes.locked === undefined ? undefined : this.flavour.bool(changes.locked),
      disabled: changes.disabled === undefined ? undefined : this.flavour.bool(changes.disabled),
      password_hash: changes.password_hash,
      password_set_date: changes.password_set_date,
    };
    const present = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
    if (Object.keys(present).length === 0) return this.findUserById(userId);
    // One statement changes the row and reads it back (the profile of update_user, BENCHMARKS.md).
    const columns = Object.keys(present) as (keyof typeof values)[];
    const update = async (db: Db) => {
      const [row] = (await db.executeQuery(this.#updateQuery(columns)(...columns.map((column) => present[column]), userId))).rows;
      return row && (await this.#withGroups(db, [row]))[0];
    };
    return this.#unique('username', () => (this.commitGroup ? this.commitGroup.run(update) : update(this.db)));
  }

  async deleteUser(userId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('users').where('user_id', '=', userId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async findPasswordHash(userId: string): Promise<string | null | undefined> {
    const row = await this.db.selectFrom('users').select('password_hash').where('user_id', '=', userId).executeTakeFirst();
    return row?.password_hash;
  }

  async listGroups(): Promise<Group[]> {
    const rows = await this.db.selectFrom('groups').select(['group_id', 'name', 'is_system']).orderBy('name').execute();
    return rows.map((row) => ({ group_id: row.group_id, name: row.name, is_system: Boolean(row.is_system) }));
  }

  async createGroup(group: { group_id: string; name: string }): Promise<Group> {
    await this.#unique('group_name', () =>
      this.db
        .insertInto('groups')
        .values({ ...group, is_system: this.flavour.bool(false), created: new Date().toISOString() })
        .execute(),
    );
    return { ...group, is_system: false };
  }

  async deleteGroup(groupId: string): Promise<'deleted' | 'no_group' | 'system_group'> {
    return this.db.transaction().execute(async (trx) => {
      const group = await trx.selectFrom('groups').select('is_system').where('group_id', '=', groupId).executeTakeFirst();
      if (!group) return 'no_group';
      if (group.is_system) return 'system_group';
      // Memberships go with it (ON DELETE CASCADE).
      await trx.deleteFrom('groups').where('group_id', '=', groupId).execute();
      return 'deleted';
    });
  }

  async addUserToGroup(userId: string, groupId: string): Promise<MembershipChange> {
    return this.db.transaction().execute(async (trx) => {
      const problem = await this.#membershipProblem(trx, userId, groupId);
      if (problem) return problem;
      const result = await trx
        .insertInto('user_groups')
        .values({ user_id: userId, group_id: groupId })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0 ? 'done' : 'already_member';
    });
  }

  async removeUserFromGroup(userId: string, groupId: string): Promise<MembershipChange> {
    return this.db.transaction().execute(async (trx) => {
      const problem = await this.#membershipProblem(trx, userId, groupId);
      if (problem) return problem;
      const group = await trx.selectFrom('groups').select('is_system').where('group_id', '=', groupId).executeTakeFirstOrThrow();
      if (group.is_system) return 'system_group';
      const result = await trx
        .deleteFrom('user_groups')
        .where('user_id', '=', userId)
        .where('group_id', '=', groupId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0 ? 'done' : 'not_member';
    });
  }

  async insertApiKey(key: ApiKeyRecord): Promise<void> {
    await this.db.insertInto('api_keys').values(this.#apiKeyRow(key)).execute();
  }

  async insertFirstApiKey(key: ApiKeyRecord): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // Several instances may start on an empty database at once; exactly one creates the key.
      await this.flavour.serialize(trx, 'first-api-key');
      if (await trx.selectFrom('api_keys').select('api_key').limit(1).executeTakeFirst()) return false;
      await trx.insertInto('api_keys').values(this.#apiKeyRow(key)).execute();
      return true;
    });
  }

  async findApiKey(apiKey: string): Promise<ApiKeyRecord | undefined> {
    const [row] = (await this.db.executeQuery(this.#apiKeyQuery(apiKey))).rows;
    return row && { ...row, permissions: parsePermissions(row.permissions) };
  }

  async listApiKeys(): Promise<ApiKeyRecord[]> {
    const rows = await this.db.selectFrom('api_keys').selectAll().orderBy('created').orderBy('api_key').execute();
    return rows.map((row) => ({ ...row, permissions: parsePermissions(row.permissions) }));
  }

  async revokeApiKey(apiKey: string, when: string): Promise<boolean> {
    const result = await this.db
      .updateTable('api_keys')
      .set({ revoked: when })
      .where('api_key', '=', apiKey)
      .where('revoked', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async listUsernameReports(): Promise<UsernameReport[]> {
    return this.db.selectFrom('username_reports').selectAll().orderBy('username').orderBy('user_id').execute();
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.db);
  }

  async close(): Promise<void> {
    await this.db.destroy();
  }

  #apiKeyRow(key: ApiKeyRecord) {
    return { ...key, permissions: key.permissions.join(',') };
  }

  async #findUser(db: Db, column: 'user_id' | 'username', value: string): Promise<User | undefined> {
    const [row] = (await db.executeQuery(this.#userByQuery[column](value))).rows;
    return row && (await this.#withGroups(db, [row]))[0];
  }

  #updateQuery(columns: string[]): (...values: unknown[]) => CompiledQuery<UserRow> {
    const key = columns.join(',');
    let query = this.#updateQueries.get(key);
    if (!query) {
      query = queryTemplate(columns.length + 1, (...values: unknown[]) =>
        this.db
          .updateTable('users')
          .set(Object.fromEntries(columns.map((column, index) => [column, values[index]])))
          .where('user_id', '=', values[columns.length] as string)
          .returning(USER_COLUMNS),
      );
      this.#updateQueries.set(key, query);
    }
    return query;
  }

  async #withGroups(db: Db, rows: UserRow[]): Promise<User[]> {
    if (rows.length === 0) return [];
    const memberships =
      rows.length === 1
        ? (await db.executeQuery(this.#membershipsOfOneQuery(rows[0]!.user_id))).rows
        : await membershipsQuery(
            db,
            rows.map((row) => row.user_id),
          ).execute();
    const groupsByUser = new Map<string, User['groups']>();
    for (const { user_id, group_id, name } of memberships) {
      const groups = groupsByUser.get(user_id) ?? [];
      groups.push({ group_id, name });
      groupsByUser.set(user_id, groups);
    }
    return rows.map((row) => ({
      ...row,
      locked: Boolean(row.locked),
      disabled: Boolean(row.disabled),
      realm: 'local',
      groups: groupsByUser.get(row.user_id) ?? [],
    }));
  }

  async #membershipProblem(db: Db, userId: string, groupId: string): Promise<MembershipChange | undefined> {
    const user = await db.selectFrom('users').select('user_id').where('user_id', '=', userId).executeTakeFirst();
    if (!user) return 'no_user';
    const group = await db.selectFrom('groups').select('group_id').where('group_id', '=', groupId).executeTakeFirst();
    return group ? undefined : 'no_group';
  }

  async #unique<T>(field: NameTakenError['field'], write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (this.flavour.isUniqueViolation(error)) throw new NameTakenError(field);
      throw error;
    }
  }
}

type MembershipRow = { user_id: string; group_id: string; name: string };

/** The groups of these users, by name. */
function membershipsQuery(db: Db, userIds: string[]) {
  return db
    .selectFrom('user_groups')
    .innerJoin('groups', 'groups.group_id', 'user_groups.group_id')
    .select(['user_groups.user_id', 'groups.group_id', 'groups.name'])
    .where('user_groups.user_id', 'in', userIds)
    .orderBy('groups.name');
}

function parsePermissions(stored: string): Permission[] {
  return stored === '' ? [] : (stored.split(',') as Permission[]);
}
