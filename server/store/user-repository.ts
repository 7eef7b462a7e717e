/**
 * Users on Kysely, for SQLite and PostgreSQL alike (database-traits.ts holds
 * what differs). The queries every authenticated request or update runs are
 * compiled once (query-template.ts).
 */
import type { CompiledQuery, Kysely, Selectable, SelectQueryBuilder } from 'kysely';
import type { AuditTrail } from './audit-repository.js';
import { type DatabaseTraits, type Db, type GroupCommit, uniqueName } from './database-traits.js';
import { type MembershipRow, membershipsQuery } from './group-repository.js';
import { ALL_USERS_GROUP } from './migrations.js';
import { queryTemplate } from './query-template.js';
import type { ChangeAuthor, NewUserRecord, User, UserChanges, UserListing, UsernameReport, UserQuery } from './records.js';
import type { UserRepository } from './repositories.js';
import type { Database, UsersTable } from './schema.js';
import { present } from '../../lib/present.js';

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
  'sessions_valid_from',
] as const;

type UserRow = Pick<Selectable<UsersTable>, (typeof USER_COLUMNS)[number]>;

const PROFILE_FIELDS = ['username', 'first_name', 'last_name', 'phone', 'organization', 'locked', 'disabled'] as const;

/** A new user's fields worth naming in its audit event: those not left at their defaults. */
function fieldsSetOn(user: NewUserRecord): string[] {
  const set = PROFILE_FIELDS.filter((field) => field === 'username' || (user[field] !== '' && user[field] !== false));
  return user.password_hash ? [...set, 'password'] : set;
}

/** The fields an update sets, by name: `password` for a new hash, never the hash. */
function fieldsSetBy(changes: UserChanges): string[] {
  const set = PROFILE_FIELDS.filter((field) => changes[field] !== undefined);
  return changes.password_hash !== undefined ? [...set, 'password'] : set;
}

export class KyselyUserRepository implements UserRepository {
  /** Present where updates commit in groups (SQLite). */
  readonly #commitGroup: GroupCommit | undefined;
  readonly #membershipsOfOneQuery: (userId: string) => CompiledQuery<MembershipRow>;
  readonly #userByQuery: Record<'user_id' | 'username', (value: string) => CompiledQuery<UserRow>>;
  /** update_user's query for each set of columns changed, by their names. */
  readonly #updateQueries = new Map<string, (...values: unknown[]) => CompiledQuery<UserRow>>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly traits: DatabaseTraits,
    private readonly audit: AuditTrail,
    onGroupCommit?: (writes: number) => void,
  ) {
    this.#commitGroup = traits.commitGroup(db, onGroupCommit);
    this.#membershipsOfOneQuery = queryTemplate(1, (userId: string) => membershipsQuery(db, [userId]));
    const userBy = (column: 'user_id' | 'username') =>
      queryTemplate(1, (value: string) => db.selectFrom('users').select(USER_COLUMNS).where(column, '=', value));
    this.#userByQuery = { user_id: userBy('user_id'), username: userBy('username') };
  }

  async list({ pageSize, sortBy, sortDirection, start, countTotal = true }: UserQuery): Promise<UserListing> {
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

  async findById(userId: string): Promise<User | undefined> {
    return this.#find(this.db, 'user_id', userId);
  }

  async findByUsername(username: string): Promise<User | undefined> {
    return this.#find(this.db, 'username', username);
  }

  async create(user: NewUserRecord, by: ChangeAuthor): Promise<User> {
    return uniqueName(this.traits, 'username', () =>
      this.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('users')
          .values({
            ...user,
            locked: this.traits.bool(user.locked),
            disabled: this.traits.bool(user.disabled),
            password_set_date: user.password_hash ? user.created : null,
            last_session: null,
            sessions_valid_from: null,
          })
          .execute();
        await trx
          .insertInto('user_groups')
          .columns(['user_id', 'group_id'])
          .expression((eb) =>
            eb
              .selectFrom('groups')
              .select([eb.val(user.user_id).as('user_id'), 'group_id'])
              .where('name', '=', ALL_USERS_GROUP),
          )
          .execute();
        await this.audit.record(trx, by, { operation: 'createUser', targetUserId: user.user_id, changedFields: fieldsSetOn(user) });
        return present(await this.#find(trx, 'user_id', user.user_id), 'the user just created');
      }),
    );
  }

  async update(userId: string, changes: UserChanges, by: ChangeAuthor): Promise<User | undefined> {
    // Name each column on purpose rather than spreading `changes`: only these can ever be written.
    const values = {
      username: changes.username,
      first_name: changes.first_name,
      last_name: changes.last_name,
      phone: changes.phone,
      organization: changes.organization,
      locked: changes.locked === undefined ? undefined : this.traits.bool(changes.locked),
      disabled: changes.disabled === undefined ? undefined : this.traits.bool(changes.disabled),
      password_hash: changes.password_hash,
      password_set_date: changes.password_set_date,
    };
    const present = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
    if (Object.keys(present).length === 0) return this.findById(userId);
    // One statement changes the row and reads it back (the profile of update_user, BENCHMARKS.md).
    const columns = Object.keys(present) as (keyof typeof values)[];
    // The change and its audit event, on one transaction: the group's, or one of its own.
    const update = async (trx: Db) => {
      const [row] = (await trx.executeQuery(this.#updateQuery(columns)(...columns.map((column) => present[column]), userId))).rows;
      if (!row) return undefined;
      await this.audit.record(trx, by, { operation: 'updateUser', targetUserId: userId, changedFields: fieldsSetBy(changes) });
      return (await this.#withGroups(trx, [row]))[0];
    };
    return uniqueName(this.traits, 'username', () =>
      this.#commitGroup ? this.#commitGroup.run(update) : this.db.transaction().execute(update),
    );
  }

  async delete(userId: string, by: ChangeAuthor): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // Memberships go with the user (ON DELETE CASCADE).
      const result = await trx.deleteFrom('users').where('user_id', '=', userId).executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return false;
      await this.audit.record(trx, by, { operation: 'deleteUser', targetUserId: userId });
      return true;
    });
  }

  async logout(userId: string, at: string, by: ChangeAuthor): Promise<User | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const stored = await trx.selectFrom('users').select('sessions_valid_from').where('user_id', '=', userId).executeTakeFirst();
      if (!stored) return undefined;
      // Only forward: a clock that stepped back must not make ended sessions valid again.
      const previous = stored.sessions_valid_from;
      const from = previous !== null && previous >= at ? new Date(Date.parse(previous) + 1).toISOString() : at;
      await trx.updateTable('users').set({ sessions_valid_from: from }).where('user_id', '=', userId).execute();
      await this.audit.record(trx, by, { operation: 'logoutUser', targetUserId: userId, changedFields: ['sessions_valid_from'] });
      return this.#find(trx, 'user_id', userId);
    });
  }

  async findPasswordHash(userId: string): Promise<string | null | undefined> {
    const row = await this.db.selectFrom('users').select('password_hash').where('user_id', '=', userId).executeTakeFirst();
    return row?.password_hash;
  }

  async listUsernameReports(): Promise<UsernameReport[]> {
    return this.db.selectFrom('username_reports').selectAll().orderBy('username').orderBy('user_id').execute();
  }

  async #find(db: Db, column: 'user_id' | 'username', value: string): Promise<User | undefined> {
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

  /** The users of these rows, with their groups (one query for one user, compiled once). */
  async #withGroups(db: Db, rows: UserRow[]): Promise<User[]> {
    if (rows.length === 0) return [];
    const memberships =
      rows.length === 1
        ? (await db.executeQuery(this.#membershipsOfOneQuery(present(rows[0], 'the one row').user_id))).rows
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
}
