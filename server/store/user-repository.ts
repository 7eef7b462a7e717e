/**
 * Users on Kysely, for SQLite and PostgreSQL alike (database-traits.ts holds
 * what differs). The queries every authenticated request or update runs are
 * compiled once (query-template.ts).
 */
import {
  type CompiledQuery,
  type ExpressionBuilder,
  type Kysely,
  type Selectable,
  type SelectQueryBuilder,
  type SqlBool,
  type Transaction,
  sql,
} from 'kysely';
import type { AuditTrail } from './audit-repository.js';
import { type DatabaseTraits, type Db, type GroupCommit, type GroupedReads, uniqueName } from './database-traits.js';
import { groupsOfUser, type MembershipRow, membershipsQuery, nextVersion } from './shared-rows.js';
import { ALL_USERS_GROUP } from './migrations.js';
import { queryTemplate } from './query-template.js';
import { USER_FILTER, filterExpression, totalMatches, uniqueKeyOf } from './scim-filter.js';
import {
  type ChangeAuthor,
  type ExpectedVersions,
  type NewUserRecord,
  StaleVersionError,
  type User,
  type UserChanges,
  type UserListing,
  type UsernameReport,
  type UserQuery,
  type Email,
  type StoredUser,
  type StoredUserFields,
  type DirectoryFields,
  type Versioned,
  type UserSearch,
  type UserSearchResult,
} from './records.js';
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

/** A user's columns with its version, for reads and writes that answer one user (migration 0006). */
const VERSIONED_COLUMNS = [...USER_COLUMNS, 'version', 'modified', 'external_id', 'emails'] as const;

type UserRow = Pick<Selectable<UsersTable>, (typeof USER_COLUMNS)[number]>;
type VersionedRow = Pick<Selectable<UsersTable>, (typeof VERSIONED_COLUMNS)[number]>;
/** A versioned row with the user's groups beside it (shared-rows.ts, groupsOfUser). */
type WholeRow = VersionedRow & { member_of: unknown };

/** A user as the API shows it, from its row and its groups. */
function userOf(row: UserRow, groups: User['groups']): User {
  return {
    user_id: row.user_id,
    username: row.username,
    first_name: row.first_name,
    last_name: row.last_name,
    phone: row.phone,
    organization: row.organization,
    locked: Boolean(row.locked),
    disabled: Boolean(row.disabled),
    realm: 'local',
    created: row.created,
    password_set_date: row.password_set_date,
    last_session: row.last_session,
    sessions_valid_from: row.sessions_valid_from,
    groups,
  };
}

/** Why a conditional write on this user found nothing to change: no such user, or another version. */
async function missedBecause(db: Db, userId: string): Promise<undefined> {
  const row = await db.selectFrom('users').select('version').where('user_id', '=', userId).executeTakeFirst();
  if (row) throw new StaleVersionError(row.version);
  return undefined;
}

const PROFILE_FIELDS = ['username', 'first_name', 'last_name', 'phone', 'organization', 'locked', 'disabled'] as const;

/** A new user's fields worth naming in its audit event: those not left at their defaults. */
function fieldsSetOn(user: NewUserRecord): string[] {
  const set: string[] = PROFILE_FIELDS.filter((field) => field === 'username' || (user[field] !== '' && user[field] !== false));
  if (user.external_id) set.push('external_id');
  if (user.emails?.length) set.push('emails');
  return user.password_hash ? [...set, 'password'] : set;
}

/** The fields an update sets, by name: `password` for a new hash, never the hash. */
function fieldsSetBy(changes: UserChanges): string[] {
  const set: string[] = PROFILE_FIELDS.filter((field) => changes[field] !== undefined);
  if (changes.external_id !== undefined) set.push('external_id');
  if (changes.emails !== undefined) set.push('emails');
  return changes.password_hash !== undefined ? [...set, 'password'] : set;
}

/** LIKE's own characters in a search's text, taken as themselves. */
const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (character) => `\\${character}`);

/**
 * The users whose username, first or last name, or "first last", contains `text` in any case
 * (get_users' `search`). A scan of the users table, which on 100,000 users answers well within
 * what a person typing waits for (BENCHMARKS.md); no index serves "contains".
 */
function containing(text: string) {
  const pattern = `%${likeEscaped(text.toLowerCase())}%`;
  return (eb: ExpressionBuilder<Database, 'users'>) =>
    eb.or(
      [sql`username`, sql`first_name`, sql`last_name`, sql`first_name || ' ' || last_name`].map(
        (column) => sql<SqlBool>`lower(${column}) like ${pattern} escape '\\'`,
      ),
    );
}

export class KyselyUserRepository implements UserRepository {
  /** Present where updates and new users commit in groups (SQLite). */
  readonly #commitGroup: GroupCommit | undefined;
  readonly #membershipsOfOneQuery: (userId: string) => CompiledQuery<MembershipRow>;
  readonly #userByQuery: Record<'user_id' | 'username', (value: string) => CompiledQuery<WholeRow>>;
  readonly #userFieldsByIdQuery: (userId: string) => CompiledQuery<VersionedRow>;
  /** update_user's query for each set of columns changed and number of expected versions. */
  readonly #updateQueries = new Map<string, (...values: unknown[]) => CompiledQuery<WholeRow>>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly traits: DatabaseTraits,
    private readonly audit: AuditTrail,
    onGroupCommit?: (writes: number) => void,
    /** Reads together with the turn's others while no transaction holds the connection (SQLite): a user's fields before a rewrite. */
    private readonly grouped?: GroupedReads,
  ) {
    this.#commitGroup = traits.commitGroup(db, onGroupCommit);
    this.#membershipsOfOneQuery = queryTemplate(1, (userId: string) => membershipsQuery(db, [userId]));
    const userBy = (column: 'user_id' | 'username') =>
      queryTemplate(1, (value: string) =>
        db.selectFrom('users').select(VERSIONED_COLUMNS).select(groupsOfUser(traits)).where(column, '=', value),
      );
    this.#userByQuery = { user_id: userBy('user_id'), username: userBy('username') };
    this.#userFieldsByIdQuery = queryTemplate(1, (userId: string) =>
      db.selectFrom('users').select(VERSIONED_COLUMNS).where('user_id', '=', userId),
    );
  }

  async list({ pageSize, sortBy, sortDirection, start, countTotal = true, matching, memberOf }: UserQuery): Promise<UserListing> {
    const found = (eb: ExpressionBuilder<Database, 'users'>) =>
      eb.and([
        ...(matching === undefined ? [] : [containing(matching)(eb)]),
        ...(memberOf === undefined
          ? []
          : [eb('user_id', 'in', eb.selectFrom('user_groups').select('user_groups.user_id').where('user_groups.group_id', '=', memberOf))]),
      ]);
    // One user more than the page tells whether another follows it.
    const inOrder = <Q extends SelectQueryBuilder<Database, 'users', unknown>>(query: Q) =>
      query
        .where(found)
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
          .where(found)
          .select((eb) => eb.fn.countAll<number | string>().as('total'))
          .executeTakeFirstOrThrow()
      : { total: -1 };
    const more = rows.length > pageSize;
    return { users: await this.#withGroups(this.db, more ? rows.slice(0, pageSize) : rows), total: Number(total), more };
  }

  /** Runs a write on the next commit group's transaction where writes commit in groups (SQLite), else on one of its own. */
  #write<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    return this.#commitGroup ? this.#commitGroup.run(work) : this.db.transaction().execute(work);
  }

  async search({ filter, sortBy, sortDirection, offset, limit }: UserSearch): Promise<UserSearchResult> {
    const key = uniqueKeyOf(filter, USER_FILTER);
    if (key && (key.column === 'user_id' || key.column === 'username')) {
      const user = await this.#find(this.db, key.column, key.value);
      return { users: user && offset === 0 && limit > 0 ? [user] : [], total: user ? 1 : 0 };
    }
    const where = (eb: ExpressionBuilder<Database, 'users'>) => (filter ? filterExpression(eb, filter, USER_FILTER) : sql<SqlBool>`true`);
    const rows = await this.db
      .selectFrom('users')
      .select(VERSIONED_COLUMNS)
      .where(where)
      .orderBy(sortBy, sortDirection)
      .orderBy('user_id', sortDirection)
      .limit(limit)
      .offset(offset)
      .execute();
    const total = await totalMatches({ offset, limit }, rows, () =>
      this.db
        .selectFrom('users')
        .where(where)
        .select((eb) => eb.fn.countAll<number | string>().as('total'))
        .executeTakeFirstOrThrow(),
    );
    return { users: await this.#stored(this.db, rows), total };
  }

  async findById(userId: string): Promise<StoredUser | undefined> {
    return this.#find(this.db, 'user_id', userId);
  }

  async findFieldsById(userId: string): Promise<StoredUserFields | undefined> {
    const query = this.#userFieldsByIdQuery(userId);
    const grouped = this.grouped?.rows(query);
    // Asked by a rewrite, which writes what it read: its write commits in the group that follows
    // this read's (commit-group.ts), not in the one after.
    this.#commitGroup?.reserve();
    const [row] = (await grouped) ?? (await this.db.executeQuery(query)).rows;
    if (!row) return undefined;
    const { groups: _unread, ...record } = userOf(row, []);
    return this.#storedOf(row, record);
  }

  async findByUsername(username: string): Promise<StoredUser | undefined> {
    return this.#find(this.db, 'username', username);
  }

  async create(user: NewUserRecord, by: ChangeAuthor): Promise<StoredUser> {
    // The user, its membership of the system group and its event, on one transaction: the
    // group's, as for an update (an identity provider's first sync creates thousands at once,
    // each of its own a commit and an fsync), or one of its own.
    const create = async (trx: Db) => {
      await trx
        .insertInto('users')
        .values({
          ...user,
          locked: this.traits.bool(user.locked),
          disabled: this.traits.bool(user.disabled),
          password_set_date: user.password_hash ? user.created : null,
          last_session: null,
          sessions_valid_from: null,
          modified: user.created,
          external_id: user.external_id ?? null,
          external_id_key: user.external_id ?? null,
          emails: JSON.stringify(user.emails ?? []),
        })
        .execute();
      // The system group lists every user: its representation changes with each one.
      await trx.updateTable('groups').set(nextVersion(user.created)).where('name', '=', ALL_USERS_GROUP).execute();
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
      if (user.password_hash) await this.#rememberPassword(trx, user.user_id, user.password_hash, user.created);
      const created = present(await this.#find(trx, 'user_id', user.user_id), 'the user just created');
      await this.audit.record(trx, by, {
        operation: 'createUser',
        targetUserId: user.user_id,
        changedFields: fieldsSetOn(user),
        resourceVersion: created.version,
      });
      return created;
    };
    return uniqueName(this.traits, 'username', () => this.#write(create));
  }

  async update(userId: string, changes: UserChanges, by: ChangeAuthor, expected?: ExpectedVersions): Promise<StoredUser | undefined> {
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
      external_id: changes.external_id,
      // Kept again, unique (migration 0013): a second user with the same external id is refused.
      external_id_key: changes.external_id,
      emails: changes.emails === undefined ? undefined : JSON.stringify(changes.emails),
    };
    // null is a value here (an external_id taken away); only undefined means "unchanged".
    const present = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined));
    if (Object.keys(present).length === 0) {
      const found = await this.findById(userId);
      if (found && expected && !expected.includes(found.version)) throw new StaleVersionError(found.version);
      return found;
    }
    // One statement changes the row, moves its version when it is at an expected one, and reads
    // it back (the profile of update_user, BENCHMARKS.md).
    const columns = Object.keys(present) as (keyof typeof values)[];
    const modified = new Date().toISOString();
    const query = this.#updateQuery(columns, expected?.length);
    // The change and its audit event, on one transaction: the group's, or one of its own.
    const update = async (trx: Db) => {
      const parameters = [...columns.map((column) => present[column]), modified, userId, ...(expected ?? [])];
      const [row] = (await trx.executeQuery(query(...parameters))).rows;
      // Nothing changed: answered outside the group's transaction, which a throw would undo.
      if (!row) return expected ? ('missed' as const) : undefined;
      if (changes.password_hash !== undefined)
        await this.#rememberPassword(trx, userId, changes.password_hash, modified, changes.passwords_kept);
      const updated = this.#whole(row);
      await this.audit.record(trx, by, {
        operation: 'updateUser',
        targetUserId: userId,
        changedFields: fieldsSetBy(changes),
        resourceVersion: updated.version,
      });
      return updated;
    };
    const written = await uniqueName(this.traits, 'username', () => this.#write(update));
    return written === 'missed' ? missedBecause(this.db, userId) : written;
  }

  async delete(userId: string, by: ChangeAuthor, expected?: ExpectedVersions): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      // The groups that list the user change with it; memberships go with the user (ON DELETE CASCADE).
      await trx
        .updateTable('groups')
        .set(nextVersion(new Date().toISOString()))
        .where('group_id', 'in', trx.selectFrom('user_groups').select('group_id').where('user_id', '=', userId))
        .execute();
      let deletion = trx.deleteFrom('users').where('user_id', '=', userId);
      if (expected) deletion = deletion.where('version', 'in', expected.length > 0 ? [...expected] : [-1]);
      const result = await deletion.executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) {
        // Undoes the groups' versions with the rest of the transaction.
        if (expected) await missedBecause(trx, userId);
        return false;
      }
      await this.audit.record(trx, by, { operation: 'deleteUser', targetUserId: userId });
      return true;
    });
  }

  async logout(userId: string, at: string, by: ChangeAuthor): Promise<StoredUser | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const stored = await trx.selectFrom('users').select('sessions_valid_from').where('user_id', '=', userId).executeTakeFirst();
      if (!stored) return undefined;
      // Only forward: a clock that stepped back must not make ended sessions valid again.
      const previous = stored.sessions_valid_from;
      const from = previous !== null && previous >= at ? new Date(Date.parse(previous) + 1).toISOString() : at;
      await trx
        .updateTable('users')
        .set({ sessions_valid_from: from, ...nextVersion(at) })
        .where('user_id', '=', userId)
        .execute();
      const loggedOut = present(await this.#find(trx, 'user_id', userId), 'the user just logged out');
      await this.audit.record(trx, by, {
        operation: 'logoutUser',
        targetUserId: userId,
        changedFields: ['sessions_valid_from'],
        resourceVersion: loggedOut.version,
      });
      return loggedOut;
    });
  }

  async recentPasswordHashes(userId: string, count: number): Promise<string[]> {
    if (count <= 0) return [];
    const rows = await this.db
      .selectFrom('password_history')
      .select('password_hash')
      .where('user_id', '=', userId)
      .orderBy('set_at', 'desc')
      .limit(count)
      .execute();
    return rows.map((row) => row.password_hash);
  }

  /** Adds a password to the user's history, keeping the latest `kept` (all, when not given; none for 0). */
  async #rememberPassword(trx: Db, userId: string, passwordHash: string, at: string, kept?: number): Promise<void> {
    if (kept === 0) {
      await trx.deleteFrom('password_history').where('user_id', '=', userId).execute();
      return;
    }
    await trx.insertInto('password_history').values({ user_id: userId, password_hash: passwordHash, set_at: at }).execute();
    if (kept === undefined) return;
    const newest = await trx
      .selectFrom('password_history')
      .select('set_at')
      .where('user_id', '=', userId)
      .orderBy('set_at', 'desc')
      .offset(kept - 1)
      .limit(1)
      .executeTakeFirst();
    if (newest) await trx.deleteFrom('password_history').where('user_id', '=', userId).where('set_at', '<', newest.set_at).execute();
  }

  async listUsernameReports(): Promise<UsernameReport[]> {
    return this.db.selectFrom('username_reports').selectAll().orderBy('username').orderBy('user_id').execute();
  }

  async #find(db: Db, column: 'user_id' | 'username', value: string): Promise<StoredUser | undefined> {
    const [row] = (await db.executeQuery(this.#userByQuery[column](value))).rows;
    return row && this.#whole(row);
  }

  /**
   * The update of these columns, with the time of the change, the user's id, then the versions
   * expected (none: no condition) as its values.
   */
  #updateQuery(columns: string[], expectedCount: number | undefined): (...values: unknown[]) => CompiledQuery<WholeRow> {
    const key = `${columns.join(',')}/${expectedCount ?? '-'}`;
    let query = this.#updateQueries.get(key);
    if (!query) {
      const arity = columns.length + 2 + (expectedCount ?? 0);
      query = queryTemplate(arity, (...values: unknown[]) => {
        const [modified, userId, ...versions] = values.slice(columns.length);
        let update = this.db
          .updateTable('users')
          .set({ ...Object.fromEntries(columns.map((column, index) => [column, values[index]])), ...nextVersion(modified as string) })
          .where('user_id', '=', userId as string);
        // No version at all was expected (only entity tags of others): nothing can match.
        if (expectedCount === 0) update = update.where(sql<boolean>`1 = 0`);
        else if (expectedCount !== undefined) update = update.where('version', 'in', versions as number[]);
        return update.returning(VERSIONED_COLUMNS).returning(groupsOfUser(this.traits));
      });
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
    return rows.map((row) => userOf(row, groupsByUser.get(row.user_id) ?? []));
  }

  /** One user with its groups (read with its row), its version and what SCIM keeps of it. */
  #whole(row: WholeRow): StoredUser {
    const pairs = this.traits.fromJson(row.member_of) as [string, string][];
    return this.#storedOf(
      row,
      userOf(
        row,
        pairs.map(([group_id, name]) => ({ group_id, name })),
      ),
    );
  }

  /** Users with their groups, their versions and what SCIM keeps of them. */
  async #stored(db: Db, rows: VersionedRow[]): Promise<StoredUser[]> {
    const users = await this.#withGroups(db, rows);
    return rows.map((row, index) => this.#storedOf(row, present(users[index], 'the user of a row')));
  }

  #storedOf<Fields extends Omit<User, 'groups'>>(row: VersionedRow, record: Fields): Versioned<Fields> & { directory: DirectoryFields } {
    return {
      record,
      version: row.version,
      modified: row.modified ?? row.created,
      directory: { external_id: row.external_id, emails: JSON.parse(row.emails) as Email[] },
    };
  }
}
