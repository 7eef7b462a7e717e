/**
 * Groups and memberships: every door creates, changes and deletes them here,
 * so that the group-name rule, the system group's, versions and the store's
 * refusals are applied one way whichever door a change comes through.
 */
import {
  type ChangeAuthor,
  type ExpectedVersions,
  type Group,
  type GroupAmendment,
  type GroupChange,
  type GroupFieldChanges,
  type GroupRewrite,
  type GroupSearch,
  type GroupSearchResult,
  type MembershipChange,
  type StoredGroup,
} from '../store/records.js';
import type { Store } from '../store/repositories.js';
import { InvalidFilterError } from '../store/scim-filter.js';
import { DirectoryError, type Refusal, refuse, refusingStoreErrors } from './errors.js';
import { acceptedGroupName } from './group-name.js';
import { canonicalId, newId } from './ids.js';
import { writeAtVersionRead } from './versioned-write.js';

/** A new group: its name, and what else is known; `members` join it at once, in the same change. */
export interface NewGroup {
  name: string;
  description?: string;
  priority?: number;
  external_id?: string | null;
  members?: readonly string[];
}

/**
 * The most memberships one write adds and removes: each is a row, a user's new version and an
 * event, all in one transaction that SQLite's writer and the event loop wait for: a replacement
 * that would empty a group of 100,000 members is refused (docs/scim.md, "Bounds"). The SCIM
 * contract's bound on members named in one request is the same number (a test holds them equal).
 */
export const MEMBER_CHANGES_PER_WRITE = 1000;

const notFound = (): never => refuse({ kind: 'not_found', entity: 'group' });
const systemGroupKept = (): never => refuse({ kind: 'system_group' });
const systemGroupMembersKept = (): never => refuse({ kind: 'system_group', lacking: 'groups_modify_system' });

/**
 * The system group's rule, one for every door: it keeps its name, is never deleted, and
 * holds every user; a user may be taken out of it only by a key with groups_modify_system.
 */
const mayTakeFromSystemGroup = (by: ChangeAuthor): boolean => by.permissions?.includes('groups_modify_system') ?? false;

const refusing = <T>(write: () => Promise<T>) => refusingStoreErrors('group', write);
/** At the version read: a lost race is left to writeAtVersionRead, which reads again and retries. */
const refusingConflicts = <T>(write: () => Promise<T>) => refusingStoreErrors('group', write, { leavingLostRaces: true });

/** A store's answer to a change of a group, as the group changed or the directory's refusal. */
const settled = (result: GroupChange): StoredGroup =>
  result === 'no_group'
    ? notFound()
    : result === 'system_group'
      ? systemGroupKept()
      : result === 'system_group_members'
        ? systemGroupMembersKept()
        : result;

/** The fields in their stored forms: the name by the group-name rule, members by their canonical ids. */
function acceptedFields<T extends GroupFieldChanges & { members?: readonly string[] }>(fields: T): T {
  return {
    ...fields,
    ...(fields.name === undefined ? {} : { name: acceptedGroupName(fields.name) }),
    ...(fields.members === undefined ? {} : { members: [...new Set(fields.members.map(canonicalId))] }),
  };
}

const MEMBERSHIP_REFUSALS: Record<Exclude<MembershipChange, 'done'>, Refusal> = {
  no_user: { kind: 'not_found', entity: 'user' },
  no_group: { kind: 'not_found', entity: 'group' },
  already_member: { kind: 'already_member' },
  not_member: { kind: 'not_member' },
  system_group: { kind: 'system_group', lacking: 'groups_modify_system' },
};

const membership = (change: MembershipChange): void => {
  if (change !== 'done') throw new DirectoryError(MEMBERSHIP_REFUSALS[change]);
};

export function groupDirectory(store: Store) {
  const find = async (groupId: string, options?: { withMembers?: boolean }): Promise<StoredGroup> =>
    (await store.groups.find(canonicalId(groupId), options)) ?? notFound();

  const stale = (current: number) => new DirectoryError({ kind: 'stale_version', entity: 'group', current });

  return {
    /** Every group, by name. */
    list: (): Promise<Group[]> => store.groups.list(),

    /** The group, with its members unless `withMembers` is false (a group may hold every user). */
    find,

    /** The groups a SCIM filter matches; a filter the directory cannot run is refused as `invalid_filter`. */
    async search(query: GroupSearch): Promise<GroupSearchResult> {
      try {
        return await store.groups.search(query);
      } catch (error) {
        if (error instanceof InvalidFilterError) refuse({ kind: 'invalid_filter', reason: error.message });
        throw error;
      }
    },

    async create(group: NewGroup, by: ChangeAuthor): Promise<Group> {
      const fields = acceptedFields(group);
      return refusing(() => store.groups.create({ ...fields, group_id: newId() }, by));
    },

    /** Sets the fields given, at once; the system group keeps its name. */
    async update(groupId: string, changes: GroupFieldChanges, by: ChangeAuthor, expected?: ExpectedVersions): Promise<StoredGroup> {
      const amendment = { ...acceptedFields(changes), addMembers: [], removeMembers: [] };
      return settled(
        await refusing(() =>
          store.groups.amend(canonicalId(groupId), amendment, by, {
            ...(expected ? { expected } : {}),
            fromSystemGroup: mayTakeFromSystemGroup(by),
          }),
        ),
      );
    },

    /**
     * Sets the group to what `rewrite` makes of it as read with its members (a replacement):
     * `members`, when given, become exactly its members. Written only at the version read.
     */
    async rewrite(
      groupId: string,
      rewrite: (current: StoredGroup) => GroupRewrite,
      by: ChangeAuthor,
      expected?: ExpectedVersions,
    ): Promise<StoredGroup> {
      return writeAtVersionRead(
        expected,
        () => find(groupId),
        async (current) =>
          settled(
            await refusingConflicts(() =>
              store.groups.rewrite(current.record.group_id, acceptedFields(rewrite(current)), by, [current.version], {
                fromSystemGroup: mayTakeFromSystemGroup(by),
                mostMemberChanges: MEMBER_CHANGES_PER_WRITE,
              }),
            ),
          ),
        stale,
      );
    },

    /**
     * Applies an amendment (who joins, who leaves, fields) to the group as read without its
     * members, so that it reads and writes only the members it names; written only at the
     * version read. The group answered holds its members only when `withMembers` asks.
     */
    async amend(
      groupId: string,
      amendment: GroupAmendment,
      by: ChangeAuthor,
      { expected, withMembers = false }: { expected?: ExpectedVersions; withMembers?: boolean } = {},
    ): Promise<StoredGroup> {
      const accepted: GroupAmendment = {
        ...acceptedFields(amendment),
        addMembers: amendment.addMembers.map(canonicalId),
        removeMembers: amendment.removeMembers.map(canonicalId),
      };
      return writeAtVersionRead(
        expected,
        () => find(groupId, { withMembers: false }),
        async (current) =>
          settled(
            await refusingConflicts(() =>
              store.groups.amend(current.record.group_id, accepted, by, {
                expected: [current.version],
                withMembers,
                fromSystemGroup: mayTakeFromSystemGroup(by),
              }),
            ),
          ),
        stale,
      );
    },

    /** Deletes the group and its memberships; never the system group. */
    async delete(groupId: string, by: ChangeAuthor, expected?: ExpectedVersions): Promise<void> {
      const result = await refusing(() => store.groups.delete(canonicalId(groupId), by, expected));
      if (result === 'no_group') notFound();
      if (result === 'system_group') systemGroupKept();
    },

    async addMember(userId: string, groupId: string, by: ChangeAuthor): Promise<void> {
      membership(await store.groups.addMember(canonicalId(userId), canonicalId(groupId), by));
    },

    /** Takes the user out of the group; out of the system group only by a key with groups_modify_system. */
    async removeMember(userId: string, groupId: string, by: ChangeAuthor): Promise<void> {
      membership(
        await store.groups.removeMember(canonicalId(userId), canonicalId(groupId), by, { fromSystemGroup: mayTakeFromSystemGroup(by) }),
      );
    },
  };
}

export type GroupDirectory = ReturnType<typeof groupDirectory>;
