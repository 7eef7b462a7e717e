/**
 * A stored group as SCIM's Group resource (RFC 7643, 4.2), and a SCIM Group as
 * what the store sets: `displayName` is the group's name, `members` its
 * memberships (by user id), `externalId` kept for SCIM.
 */
import { entityTag } from '../http/entity-tags.js';
import { membersAsSeen, type GroupRewrite, type Sight, type StoredGroup } from '../directory/index.js';
import { InvalidValueError } from './user-resource.js';

export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';

export interface ScimGroup {
  schemas: string[];
  id: string;
  externalId?: string;
  displayName: string;
  /** Left out when the group was read without its members (the answer excludes them); `display`, the username, only for a key that may view users. */
  members?: { value: string; display?: string; type: 'User'; $ref: string }[];
  meta: { resourceType: 'Group'; created: string; lastModified: string; location: string; version: string };
}

/** A stored group as SCIM shows it to a key of this sight. */
export function scimGroup(
  { record, version, modified, created, external_id, members }: StoredGroup,
  base: string,
  sight: Sight,
): ScimGroup {
  return {
    schemas: [GROUP_SCHEMA],
    id: record.group_id,
    ...(external_id === null ? {} : { externalId: external_id }),
    displayName: record.name,
    ...(members === undefined
      ? {}
      : {
          members: membersAsSeen(members, sight).map((member) => ({
            value: member.user_id,
            ...(member.username === undefined ? {} : { display: member.username }),
            type: 'User' as const,
            $ref: `${base}/Users/${member.user_id}`,
          })),
        }),
    meta: {
      resourceType: 'Group',
      created,
      lastModified: modified,
      location: `${base}/Groups/${record.group_id}`,
      version: entityTag(version),
    },
  };
}

/** What a whole SCIM Group sets (POST, PUT, and the result of a PATCH): its name, its externalId and exactly its members. */
export function groupFieldsFrom(resource: Record<string, unknown>): Required<Pick<GroupRewrite, 'name' | 'external_id' | 'members'>> {
  const { displayName, externalId, members } = resource;
  if (typeof displayName !== 'string') throw new InvalidValueError('displayName', 'a name');
  if (externalId !== undefined && externalId !== null && typeof externalId !== 'string')
    throw new InvalidValueError('externalId', 'a string');
  if (members !== undefined && members !== null && !Array.isArray(members)) throw new InvalidValueError('members', 'a list of objects');
  const ids = ((members ?? []) as unknown[]).map((member, index) => {
    const value = (member as { value?: unknown } | null)?.value;
    if (typeof value !== 'string' || value === '') throw new InvalidValueError(`members[${index}].value`, "a user's id");
    return value;
  });
  return { name: displayName, external_id: typeof externalId === 'string' ? externalId : null, members: ids };
}
