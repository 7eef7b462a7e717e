/** Groups and memberships on Kysely, for SQLite and PostgreSQL alike. */
import type { Kysely } from 'kysely';
import type { AuditTrail } from './audit-repository.js';
import { type DatabaseTraits, type Db, uniqueName } from './database-traits.js';
import type { ChangeAuthor, Group, GroupChanges, MembershipChange, NewGroupRecord } from './records.js';
import type { GroupRepository } from './repositories.js';
import { DEFAULT_GROUP_PRIORITY } from './migrations.js';
import { nextVersion } from './user-repository.js';
import type { Database } from './schema.js';

export type MembershipRow = { user_id: string; group_id: string; name: string };

const GROUP_COLUMNS = ['group_id', 'name', 'description', 'priority', 'is_system'] as const;

const asGroup = (row: { group_id: string; name: string; description: string; priority: number; is_system: number | boolean }): Group => ({
  group_id: row.group_id,
  name: row.name,
  description: row.description,
  priority: row.priority,
  is_system: Boolean(row.is_system),
});

/** The groups of these users, by name (the user repository reads them with each user). */
export function membershipsQuery(db: Db, userIds: string[]) {
  return db
    .selectFrom('user_groups')
    .innerJoin('groups', 'groups.group_id', 'user_groups.group_id')
    .select(['user_groups.user_id', 'groups.group_id', 'groups.name'])
    .where('user_groups.user_id', 'in', userIds)
    .orderBy('groups.name');
}

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

  async create(wanted: NewGroupRecord, by: ChangeAuthor): Promise<Group> {
    const group = { description: '', priority: DEFAULT_GROUP_PRIORITY, ...wanted };
    const now = new Date().toISOString();
    await uniqueName(this.traits, 'group_name', () =>
      this.db.transaction().execute(async (trx) => {
        await trx
          .insertInto('groups')
          .values({ ...group, is_system: this.traits.bool(false), created: now, modified: now })
          .execute();
        const changedFields = ['name', ...(group.description ? ['description'] : []), 'priority'];
        await this.audit.record(trx, by, { operation: 'createGroup', targetGroupId: group.group_id, changedFields });
      }),
    );
    return { ...group, is_system: false };
  }

  async update(groupId: string, changes: GroupChanges, by: ChangeAuthor): Promise<Group | 'no_group' | 'system_group'> {
    return uniqueName(this.traits, 'group_name', () =>
      this.db.transaction().execute(async (trx) => {
        const stored = await trx.selectFrom('groups').select(GROUP_COLUMNS).where('group_id', '=', groupId).executeTakeFirst();
        if (!stored) return 'no_group' as const;
        if (stored.is_system && changes.name !== undefined && changes.name !== stored.name) return 'system_group' as const;
        const changed: GroupChanges = {};
        if (changes.name !== undefined && changes.name !== stored.name) changed.name = changes.name;
        if (changes.description !== undefined && changes.description !== stored.description) changed.description = changes.description;
        if (changes.priority !== undefined && changes.priority !== stored.priority) changed.priority = changes.priority;
        if (Object.keys(changed).length === 0) return asGroup(stored);
        const now = new Date().toISOString();
        await trx
          .updateTable('groups')
          .set({ ...changed, ...nextVersion(now) })
          .where('group_id', '=', groupId)
          .execute();
        // Each member's representation names the group.
        if (changed.name !== undefined) await bumpMembers(trx, groupId, now);
        await this.audit.record(trx, by, { operation: 'updateGroup', targetGroupId: groupId, changedFields: Object.keys(changed).sort() });
        return asGroup({ ...stored, ...changed });
      }),
    );
  }

  async delete(groupId: string, by: ChangeAuthor): Promise<'deleted' | 'no_group' | 'system_group'> {
    return this.db.transaction().execute(async (trx) => {
      const group = await trx.selectFrom('groups').select('is_system').where('group_id', '=', groupId).executeTakeFirst();
      if (!group) return 'no_group';
      if (group.is_system) return 'system_group';
      // Memberships go with it (ON DELETE CASCADE), and each member's representation changes.
      await bumpMembers(trx, groupId, new Date().toISOString());
      await trx.deleteFrom('groups').where('group_id', '=', groupId).execute();
      await this.audit.record(trx, by, { operation: 'deleteGroup', targetGroupId: groupId });
      return 'deleted';
    });
  }

  async addMember(userId: string, groupId: string, by: ChangeAuthor): Promise<MembershipChange> {
    return this.db.transaction().execute(async (trx) => {
      const problem = await membershipProblem(trx, userId, groupId);
      if (problem) return problem;
      const result = await trx
        .insertInto('user_groups')
        .values({ user_id: userId, group_id: groupId })
        .onConflict((oc) => oc.doNothing())
        .executeTakeFirst();
      if (Number(result.numInsertedOrUpdatedRows ?? 0) === 0) return 'already_member';
      await bumpBoth(trx, userId, groupId);
      await this.audit.record(trx, by, { operation: 'addUserGroup', targetUserId: userId, targetGroupId: groupId });
      return 'done';
    });
  }

  async removeMember(userId: string, groupId: string, by: ChangeAuthor, { fromSystemGroup = false } = {}): Promise<MembershipChange> {
    return this.db.transaction().execute(async (trx) => {
      const problem = await membershipProblem(trx, userId, groupId);
      if (problem) return problem;
      const group = await trx.selectFrom('groups').select('is_system').where('group_id', '=', groupId).executeTakeFirstOrThrow();
      if (group.is_system && !fromSystemGroup) return 'system_group';
      const result = await trx.deleteFrom('user_groups').where('user_id', '=', userId).where('group_id', '=', groupId).executeTakeFirst();
      if (Number(result.numDeletedRows) === 0) return 'not_member';
      await bumpBoth(trx, userId, groupId);
      await this.audit.record(trx, by, { operation: 'removeUserGroup', targetUserId: userId, targetGroupId: groupId });
      return 'done';
    });
  }
}

/** Moves the version of every member of a group. */
async function bumpMembers(db: Db, groupId: string, now: string): Promise<void> {
  await db
    .updateTable('users')
    .set(nextVersion(now))
    .where('user_id', 'in', db.selectFrom('user_groups').select('user_id').where('group_id', '=', groupId))
    .execute();
}

/** A membership shows on both sides: it moves the user's version and the group's. */
async function bumpBoth(db: Db, userId: string, groupId: string): Promise<void> {
  const now = new Date().toISOString();
  await db.updateTable('users').set(nextVersion(now)).where('user_id', '=', userId).execute();
  await db.updateTable('groups').set(nextVersion(now)).where('group_id', '=', groupId).execute();
}

/** Why a membership cannot change: no such user, or no such group. */
async function membershipProblem(db: Db, userId: string, groupId: string): Promise<MembershipChange | undefined> {
  const user = await db.selectFrom('users').select('user_id').where('user_id', '=', userId).executeTakeFirst();
  if (!user) return 'no_user';
  const group = await db.selectFrom('groups').select('group_id').where('group_id', '=', groupId).executeTakeFirst();
  return group ? undefined : 'no_group';
}
