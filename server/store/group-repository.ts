/** Groups and memberships on Kysely, for SQLite and PostgreSQL alike. */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type ExpressionBuilder, type Kysely, type SqlBool, type Transaction, sql } from 'kysely';
import type { AuditTrail } from './audit-repository.js';
import { groupNameKey } from '../username/group-name.js';
import { type DatabaseTraits, type Db, uniqueName } from './database-traits.js';
import {
  type ChangeAuthor,
  type Group,
  type GroupAmendment,
  type GroupChange,
  type GroupFieldChanges,
  type GroupMember,
  type GroupRewrite,
  type GroupSearch,
  type GroupSearchResult,
  type MembershipChange,
  type NewGroupRecord,
  StaleVersionError,
  type StoredGroup,
  TooManyMemberChangesError,
  UnknownMembersError,
} from './records.js';
import { GROUP_FILTER, filterExpression, totalMatches, uniqueKeyOf } from './scim-filter.js';
import type { GroupRepository } from './repositories.js';
import { DEFAULT_GROUP_PRIORITY } from './migrations.js';
import { nextVersion } from './shared-rows.js';
import type { Database } from './schema.js';

/** The name of the lock a group's writers take (#lockGroup): one writer of a group at a time. */
export const groupLockName = (groupId: string) => `group ${groupId}`;

const GROUP_COLUMNS = ['group_id', 'name', 'description', 'priority', 'is_system'] as const;
const STORED_COLUMNS = [...GROUP_COLUMNS, 'version', 'modified', 'created', 'external_id'] as const;

type StoredRow = {
  group_id: string;
  name: string;
  description: string;
  priority: number;
  is_system: number | boolean;
  version: number;
  modified: string | null;
  created: string;
  external_id: string | null;
};

const asGroup = (row: { group_id: string; name: string; description: string; priority: number; is_system: number | boolean }): Group => ({
  group_id: row.group_id,
  name: row.name,
  description: row.description,
  priority: row.priority,
  is_system: Boolean(row.is_system),
});

export class KyselyGroupRepository implements GroupRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly traits: DatabaseTraits,
    private readonly audit: AuditTrail,
  ) {}

  async list(): Promise<Group[]> {
    const rows = await this.db.selectFrom('groups').select(GROUP_COLUMNS).orderBy('name').execute();
    return rows.map(asGroup);
  }

  async search({ filter, withMembers, sortBy, sortDirection, offset, limit }: GroupSearch): Promise<GroupSearchResult> {
    const key = uniqueKeyOf(filter, GROUP_FILTER);
    if (key?.column === 'group_id') {
      const group = await this.find(key.value, { withMembers });
      return { groups: group && offset === 0 && limit > 0 ? [group] : [], total: group ? 1 : 0 };
    }
    const where = (eb: ExpressionBuilder<Database, 'groups'>) => (filter ? filterExpression(eb, filter, GROUP_FILTER) : sql<SqlBool>`true`);
    const rows = await this.db
      .selectFrom('groups')
      .select(STORED_COLUMNS)
      .where(where)
      .orderBy(sortBy, sortDirection)
      .orderBy('group_id', sortDirection)
      .limit(limit)
      .offset(offset)
      .execute();
    const total = await totalMatches({ offset, limit }, rows, () =>
      this.db
        .selectFrom('groups')
        .where(where)
        .select((eb) => eb.fn.countAll<number | string>().as('total'))
        .executeTakeFirstOrThrow(),
    );
    return { groups: await storedGroups(this.db, rows, withMembers), total };
  }

  async find(groupId: string, { withMembers = true } = {}): Promise<StoredGroup | undefined> {
    const row = await this.db.selectFrom('groups').select(STORED_COLUMNS).where('group_id', '=', groupId).executeTakeFirst();
    return row ? (await storedGroups(this.db, [row], withMembers))[0] : undefined;
  }

  async create(wanted: NewGroupRecord, by: ChangeAuthor): Promise<Group> {
    const { members = [], external_id = null, ...fields } = wanted;
    const group = { description: '', priority: DEFAULT_GROUP_PRIORITY, ...fields };
    const now = new Date().toISOString();
    await uniqueName(this.traits, 'group_name', () =>
      this.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('groups')
          .values({
            ...group,
            name_key: groupNameKey(group.name),
            external_id,
            external_id_key: external_id,
            is_system: this.traits.bool(false),
            created: now,
            modified: now,
          })
          .execute();
        const changedFields = [
          'name',
          ...(group.description ? ['description'] : []),
          'priority',
          ...(external_id === null ? [] : ['external_id']),
        ];
        await this.audit.record(trx, by, { operation: 'createGroup', targetGroupId: group.group_id, changedFields, resourceVersion: 1 });
        await this.#changeMembers(trx, group.group_id, [...new Set(members)], [], by, 1);
      }),
    );
    return { ...group, is_system: false };
  }

  async rewrite(
    groupId: string,
    rewrite: GroupRewrite,
    by: ChangeAuthor,
    expected?: readonly number[],
    { fromSystemGroup = false, mostMemberChanges }: { fromSystemGroup?: boolean; mostMemberChanges?: number } = {},
  ): Promise<GroupChange> {
    return this.#change(groupId, by, { expected, withMembers: true, fromSystemGroup, mostMemberChanges }, async (trx, row) => {
      const [stored] = (await storedGroups(trx, [row])) as [StoredGroup];
      const current = new Set((stored.members ?? []).map((member) => member.user_id));
      const wanted = rewrite.members ? new Set(rewrite.members) : current;
      return {
        fields: changedFields(row, rewrite),
        added: [...wanted].filter((userId) => !current.has(userId)),
        removed: [...current].filter((userId) => !wanted.has(userId)),
        unchanged: stored,
      };
    });
  }

  async amend(
    groupId: string,
    amendment: GroupAmendment,
    by: ChangeAuthor,
    {
      expected,
      withMembers = false,
      fromSystemGroup = false,
    }: { expected?: readonly number[]; withMembers?: boolean; fromSystemGroup?: boolean } = {},
  ): Promise<GroupChange> {
    return this.#change(groupId, by, { expected, withMembers, fromSystemGroup }, async (trx, row) => {
      // Of the members it names, which the group holds now: the rest of its members are not read.
      const named = [...new Set([...amendment.addMembers, ...amendment.removeMembers])];
      const held =
        named.length === 0
          ? []
          : await trx.selectFrom('user_groups').select('user_id').where('group_id', '=', groupId).where('user_id', 'in', named).execute();
      const holds = new Set(held.map((membership) => membership.user_id));
      return {
        fields: changedFields(row, amendment),
        added: [...new Set(amendment.addMembers)].filter((userId) => !holds.has(userId)),
        removed: [...new Set(amendment.removeMembers)].filter((userId) => holds.has(userId)),
      };
    });
  }

  /**
   * Makes the transaction the group's only writer until it ends. Its writers lock rows in
   * different orders (a membership, then the group's version; the group's version, then
   * memberships and their users), so in PostgreSQL two of them on one group could each wait
   * for the other until one was killed as deadlocked. SQLite has one writer already.
   */
  async #lockGroup(trx: Transaction<Database>, groupId: string): Promise<void> {
    await this.traits.serialize(trx, groupLockName(groupId));
  }

  async #row(db: Db, groupId: string): Promise<StoredRow | undefined> {
    return db.selectFrom('groups').select(STORED_COLUMNS).where('group_id', '=', groupId).executeTakeFirst();
  }

  /**
   * A change to a group, worked out by `plan` on the group as read and written in the same
   * transaction: its fields, then its memberships, each with its audit event. The group's
   * version moves before any other row is written, and only from the version read, so that of
   * writers that read one version (the handlers read before they write) one wins and the
   * others get StaleVersionError. A change that changes nothing writes nothing.
   */
  async #change(
    groupId: string,
    by: ChangeAuthor,
    {
      expected,
      withMembers,
      fromSystemGroup,
      mostMemberChanges,
    }: { expected: readonly number[] | undefined; withMembers: boolean; fromSystemGroup: boolean; mostMemberChanges?: number | undefined },
    plan: (trx: Db, row: StoredRow) => Promise<PlannedChange>,
  ): Promise<GroupChange> {
    return uniqueName(this.traits, 'group_name', () =>
      this.db.transaction().execute(async (trx) => {
        await this.#lockGroup(trx, groupId);
        const row = await this.#row(trx, groupId);
        if (!row) return 'no_group' as const;
        if (expected && !expected.includes(row.version)) throw new StaleVersionError(row.version);
        const { fields, added, removed, unchanged } = await plan(trx, row);
        // The system group keeps its name, and every user unless the author may take them out.
        if (row.is_system && fields.name !== undefined) return 'system_group' as const;
        if (row.is_system && removed.length > 0 && !fromSystemGroup) return 'system_group_members' as const;
        if (mostMemberChanges !== undefined && added.length + removed.length > mostMemberChanges)
          throw new TooManyMemberChangesError(added.length + removed.length, mostMemberChanges);
        if (Object.keys(fields).length === 0 && added.length === 0 && removed.length === 0) {
          return unchanged ?? ((await storedGroups(trx, [row], withMembers)) as [StoredGroup])[0];
        }
        const now = new Date().toISOString();
        const moved = await trx
          .updateTable('groups')
          .set({
            ...fields,
            ...(fields.name === undefined ? {} : { name_key: groupNameKey(fields.name) }),
            ...(fields.external_id === undefined ? {} : { external_id_key: fields.external_id }),
            ...nextVersion(now),
          })
          .where('group_id', '=', groupId)
          .where('version', '=', row.version)
          .executeTakeFirst();
        if (Number(moved.numUpdatedRows) === 0) throw new StaleVersionError((await this.#row(trx, groupId))?.version ?? row.version);
        // Each member's representation names the group.
        if (fields.name !== undefined) await bumpMembers(trx, groupId, now);
        if (Object.keys(fields).length > 0) {
          await this.audit.record(trx, by, {
            operation: 'updateGroup',
            targetGroupId: groupId,
            changedFields: Object.keys(fields).sort(),
            resourceVersion: row.version + 1,
          });
        }
        await this.#changeMembers(trx, groupId, added, removed, by, row.version + 1);
        const after = await trx.selectFrom('groups').select(STORED_COLUMNS).where('group_id', '=', groupId).executeTakeFirstOrThrow();
        return ((await storedGroups(trx, [after], withMembers)) as [StoredGroup])[0];
      }),
    );
  }

  /**
   * Adds and removes members of a group inside a write's transaction, each with its audit
   * event, moving each user's version (the group's moves with the write itself). A user id
   * to add that is no user's throws UnknownMembersError, which undoes the whole write.
   */
  async #changeMembers(
    trx: Db,
    groupId: string,
    added: string[],
    removed: string[],
    by: ChangeAuthor,
    groupVersion: number,
  ): Promise<void> {
    if (added.length > 0) {
      const found = await trx.selectFrom('users').select('user_id').where('user_id', 'in', added).execute();
      if (found.length < added.length) {
        const known = new Set(found.map((user) => user.user_id));
        throw new UnknownMembersError(added.filter((userId) => !known.has(userId)));
      }
    }
    // A membership's row costs SQLite about 15 µs on this thread (its two indexes and two foreign
    // keys, at places all over them): the 723 a PATCH body holds at most took 10-13 ms in one statement.
    for (let start = 0; start < added.length; start += MEMBERSHIPS_PER_STATEMENT) {
      await nextTurn();
      const batch = added.slice(start, start + MEMBERSHIPS_PER_STATEMENT);
      await trx
        .insertInto('user_groups')
        .values(batch.map((user_id) => ({ user_id, group_id: groupId })))
        .execute();
    }
    for (let start = 0; start < removed.length; start += MEMBERSHIPS_PER_STATEMENT) {
      await nextTurn();
      const batch = removed.slice(start, start + MEMBERSHIPS_PER_STATEMENT);
      await trx.deleteFrom('user_groups').where('group_id', '=', groupId).where('user_id', 'in', batch).execute();
    }
    const changed = [...added, ...removed];
    if (changed.length === 0) return;
    // A thousand members' rows are milliseconds of SQLite's work on this thread: the loop is freed between the steps.
    await nextTurn();
    await trx.updateTable('users').set(nextVersion(new Date().toISOString())).where('user_id', 'in', changed).execute();
    await nextTurn();
    await this.audit.recordAll(trx, by, [
      ...added.map((userId) => ({
        operation: 'addUserGroup' as const,
        targetUserId: userId,
        targetGroupId: groupId,
        resourceVersion: groupVersion,
      })),
      ...removed.map((userId) => ({
        operation: 'removeUserGroup' as const,
        targetUserId: userId,
        targetGroupId: groupId,
        resourceVersion: groupVersion,
      })),
    ]);
  }

  async delete(groupId: string, by: ChangeAuthor, expected?: readonly number[]): Promise<'deleted' | 'no_group' | 'system_group'> {
    return this.db.transaction().execute(async (trx) => {
      await this.#lockGroup(trx, groupId);
      const group = await trx.selectFrom('groups').select(['is_system', 'version']).where('group_id', '=', groupId).executeTakeFirst();
      if (!group) return 'no_group';
      if (expected && !expected.includes(group.version)) throw new StaleVersionError(group.version);
      if (group.is_system) return 'system_group';
      // Its members leave it a batch at a time, each member's representation changing.
      await bumpMembers(trx, groupId, new Date().toISOString(), { leaving: true });
      await trx.deleteFrom('groups').where('group_id', '=', groupId).execute();
      await this.audit.record(trx, by, { operation: 'deleteGroup', targetGroupId: groupId });
      return 'deleted';
    });
  }

  async addMember(userId: string, groupId: string, by: ChangeAuthor): Promise<MembershipChange> {
    return this.db.transaction().execute(async (trx) => {
      await this.#lockGroup(trx, groupId);
      const problem = await membershipProblem(trx, userId, groupId);
      if (problem) return problem;
      const result = await trx
        .insertInto('user_groups')
        .values({ user_id: userId, group_id: groupId })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) === 0) return 'already_member';
      const resourceVersion = await bumpBoth(trx, userId, groupId);
      await this.audit.record(trx, by, { operation: 'addUserGroup', targetUserId: userId, targetGroupId: groupId, resourceVersion });
      return 'done';
    });
  }

  async removeMember(userId: string, groupId: string, by: ChangeAuthor, { fromSystemGroup = false } = {}): Promise<MembershipChange> {
    return this.db.transaction().execute(async (trx) => {
      await this.#lockGroup(trx, groupId);
      const problem = await membershipProblem(trx, userId, groupId);
      if (problem) return problem;
      const group = await trx.selectFrom('groups').select('is_system').where('group_id', '=', groupId).executeTakeFirstOrThrow();
      if (group.is_system && !fromSystemGroup) return 'system_group';
      const result = await trx.deleteFrom('user_groups').where('user_id', '=', userId).where('group_id', '=', groupId).executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return 'not_member';
      const resourceVersion = await bumpBoth(trx, userId, groupId);
      await this.audit.record(trx, by, { operation: 'removeUserGroup', targetUserId: userId, targetGroupId: groupId, resourceVersion });
      return 'done';
    });
  }
}

/** What a change to a group comes to, against the group as read. */
interface PlannedChange {
  /** The fields whose values change. */
  fields: GroupFieldChanges;
  /** Users who join, and users who leave. */
  added: string[];
  removed: string[];
  /** The group as read, with its members, where the plan read them: answered when nothing changes. */
  unchanged?: StoredGroup;
}

/** The name and external id a change gives that differ from the row's. */
function changedFields(row: StoredRow, wanted: GroupFieldChanges): PlannedChange['fields'] {
  const fields: PlannedChange['fields'] = {};
  if (wanted.name !== undefined && wanted.name !== row.name) fields.name = wanted.name;
  if (wanted.description !== undefined && wanted.description !== row.description) fields.description = wanted.description;
  if (wanted.priority !== undefined && wanted.priority !== row.priority) fields.priority = wanted.priority;
  if (wanted.external_id !== undefined && wanted.external_id !== row.external_id) fields.external_id = wanted.external_id;
  return fields;
}

/** Groups as stored, with their versions and, unless told not to read them, their members (by username), in the order of `rows`. */
async function storedGroups(db: Db, rows: StoredRow[], withMembers = true): Promise<StoredGroup[]> {
  const members = new Map<string, GroupMember[]>(rows.map((row) => [row.group_id, []]));
  if (withMembers && rows.length > 0) {
    const memberRows = await db
      .selectFrom('user_groups')
      .innerJoin('users', 'users.user_id', 'user_groups.user_id')
      .select(['user_groups.group_id', 'users.user_id', 'users.username'])
      .where(
        'user_groups.group_id',
        'in',
        rows.map((row) => row.group_id),
      )
      .orderBy('users.username')
      .execute();
    for (const { group_id, user_id, username } of memberRows) members.get(group_id)?.push({ user_id, username });
  }
  return rows.map((row) => ({
    record: asGroup(row),
    version: row.version,
    modified: row.modified ?? row.created,
    created: row.created,
    external_id: row.external_id,
    ...(withMembers ? { members: members.get(row.group_id) ?? [] } : {}),
  }));
}

/**
 * Members whose versions one statement moves. A group may hold every user, and SQLite runs
 * its statements on the event loop's thread: one statement over 100,000 members held it for
 * a quarter of a second, so the members go in batches, the loop free between them.
 */
export const MEMBERS_BUMPED_PER_STATEMENT = 1_000;

/** Memberships one statement adds or takes out in a change of members, the loop free between statements: about 4 ms of SQLite's work each. */
export const MEMBERSHIPS_PER_STATEMENT = 250;

/**
 * Moves the version of every member of a group (a rename or a deletion shows in each), a batch
 * at a time; with `leaving`, takes each batch out of the group too, so that deleting the group
 * deletes no memberships at once.
 */
async function bumpMembers(db: Db, groupId: string, now: string, { leaving = false } = {}): Promise<void> {
  for (let after = ''; ;) {
    const batch = await db
      .selectFrom('user_groups')
      .select('user_id')
      .where('group_id', '=', groupId)
      .where('user_id', '>', after)
      .orderBy('user_id')
      .limit(MEMBERS_BUMPED_PER_STATEMENT)
      .execute();
    if (batch.length === 0) return;
    const userIds = batch.map((row) => row.user_id);
    await db.updateTable('users').set(nextVersion(now)).where('user_id', 'in', userIds).execute();
    if (leaving) {
      await nextTurn();
      await db.deleteFrom('user_groups').where('group_id', '=', groupId).where('user_id', 'in', userIds).execute();
    }
    if (batch.length < MEMBERS_BUMPED_PER_STATEMENT) return;
    after = userIds[userIds.length - 1] ?? after;
    await nextTurn();
  }
}

/** A membership shows on both sides: it moves the user's version and the group's. */
/** Moves the versions of a user and a group whose membership changed; gives the group's new one. */
async function bumpBoth(db: Db, userId: string, groupId: string): Promise<number> {
  const now = new Date().toISOString();
  await db.updateTable('users').set(nextVersion(now)).where('user_id', '=', userId).execute();
  const group = await db
    .updateTable('groups')
    .set(nextVersion(now))
    .where('group_id', '=', groupId)
    .returning('version')
    .executeTakeFirstOrThrow();
  return group.version;
}

/** Why a membership cannot change: no such user, or no such group. */
async function membershipProblem(db: Db, userId: string, groupId: string): Promise<MembershipChange | undefined> {
  const user = await db.selectFrom('users').select('user_id').where('user_id', '=', userId).executeTakeFirst();
  if (!user) return 'no_user';
  const group = await db.selectFrom('groups').select('group_id').where('group_id', '=', groupId).executeTakeFirst();
  return group ? undefined : 'no_group';
}
