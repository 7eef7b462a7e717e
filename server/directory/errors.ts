/**
 * What the directory refuses, each said once, in words a person can act on.
 * A door says it in its protocol (and may show a version as its protocol
 * does, as an ETag): the workspace API as its error code with the
 * body's paths (server/handlers/directory-errors.ts), SCIM with a scimType
 * (server/scim/directory-errors.ts), the admin command as a line on stderr.
 */
import {
  ExternalIdTakenError,
  NameTakenError,
  StaleVersionError,
  TooManyMemberChangesError,
  UnknownMembersError,
} from '../store/records.js';
import type { AttributeField } from './attributes.js';

export type Entity = 'user' | 'group' | 'api_key' | 'webhook';

export type Refusal =
  | { kind: 'not_found'; entity: Entity }
  | { kind: 'name_taken'; entity: 'user' | 'group' }
  /** Another user (or group) has the identity provider's id (SCIM's externalId). */
  | { kind: 'external_id_taken'; entity: 'user' | 'group' }
  /** The record is at none of the versions the write expected (If-Match); `current` is the one it is at. */
  | { kind: 'stale_version'; entity: 'user' | 'group'; current: number }
  /**
   * The system group ("All Users") keeps its name and every user, and is never deleted;
   * `lacking` names the permission that would let a key take a user out of it.
   */
  | { kind: 'system_group'; lacking?: 'groups_modify_system' }
  | { kind: 'invalid_username'; reason: string }
  | { kind: 'invalid_group_name'; reason: string }
  | { kind: 'weak_password'; reason: string }
  /** The password is one of the user's latest (PASSWORD_HISTORY); the reason says how many. */
  | { kind: 'password_reused'; reason: string }
  /** Members named that are no users' ids. */
  | { kind: 'unknown_members'; userIds: readonly string[] }
  /** A write that would add and remove more members than one write may (a replacement emptying a large group). */
  | { kind: 'too_many_member_changes'; changes: number; most: number }
  /** A webhook address the service will not deliver to (docs/events.md, server-side request forgery). */
  | { kind: 'invalid_webhook_url'; reason: string }
  /** A cursor the service did not hand out. */
  | { kind: 'invalid_cursor'; reason: string }
  /**
   * A change feed cursor older than the feed reaches (what followed it may be gone), or one
   * that names events this directory no longer holds: read before a restore from a backup,
   * or past the last event the database has had.
   */
  | { kind: 'cursor_expired'; retentionDays: number }
  | { kind: 'cursor_expired'; restored: true }
  /** A filter the directory cannot run: an unknown attribute, or an operator the attribute does not take. */
  | { kind: 'invalid_filter'; reason: string }
  /** A key's name or expiry the directory does not take. */
  | { kind: 'invalid_api_key'; field: 'name' | 'expires'; reason: string }
  /** A grant or a revocation that reaches past the key asking for it (keys.ts); the reason says how. */
  | { kind: 'grant_exceeds_key'; reason: string }
  | { kind: 'already_member' }
  | { kind: 'not_member' }
  /** Attributes refused, each with why; `privateKey` when an SSH key sent was a private one. */
  | { kind: 'invalid_attributes'; refused: { field: AttributeField; reason: string }[]; privateKey: boolean };

const listed = (ids: readonly string[]) => `${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''}`;

/** What is wrong, as every door words it (a door adds its own form, never other words). */
function describe(refusal: Refusal): string {
  switch (refusal.kind) {
    case 'not_found':
      return {
        user: 'User not found',
        group: 'Group not found',
        api_key: 'No active API key has this id: it does not exist or is revoked',
        webhook: 'Webhook not found',
      }[refusal.entity];
    case 'name_taken':
      return refusal.entity === 'user'
        ? 'Username is already taken'
        : 'Group name is already taken, by this name or one that reads the same (case, width and spaces aside)';
    case 'external_id_taken':
      return `Another ${refusal.entity} has this externalId: an identity provider's id names one ${refusal.entity}`;
    case 'stale_version':
      return `The ${refusal.entity} is not at the version the write expected; it is now at version ${refusal.current}`;
    case 'system_group':
      return refusal.lacking
        ? `Users can be removed from a system group such as "All Users" only by a key with ${refusal.lacking}`
        : 'A system group such as "All Users" keeps its name and every user, and cannot be renamed or deleted';
    case 'invalid_username':
      return `Username ${refusal.reason}`;
    case 'invalid_group_name':
      return `Group name ${refusal.reason}`;
    case 'weak_password':
      return `Password ${refusal.reason}`;
    case 'password_reused':
      return `Password ${refusal.reason}`;
    case 'unknown_members':
      return `members: no user has the id ${listed(refusal.userIds)}`;
    case 'too_many_member_changes':
      return `members: this write would add and remove ${refusal.changes} members, and one write changes at most ${refusal.most}; change them in several (PATCHes of members)`;
    case 'invalid_filter':
      return refusal.reason;
    case 'invalid_cursor':
      return `Invalid cursor: ${refusal.reason}`;
    case 'invalid_webhook_url':
      return `Invalid webhook URL: ${refusal.reason}`;
    case 'cursor_expired':
      return 'restored' in refusal
        ? 'The cursor names events this directory no longer holds (it was restored from a backup since): read the directory afresh with get_users and get_groups, then follow the feed again without after'
        : `The cursor is older than the ${refusal.retentionDays} days the change feed reaches: read the directory afresh with get_users and get_groups, then follow the feed again without after`;
    case 'invalid_api_key':
      return `API key ${refusal.field} ${refusal.reason}`;
    case 'grant_exceeds_key':
      return refusal.reason;
    case 'already_member':
      return 'User is already a member of this group';
    case 'not_member':
      return 'User is not a member of this group';
    case 'invalid_attributes':
      return refusal.privateKey
        ? 'The SSH key is a private key: send its public half (the .pub file); nothing was stored'
        : `Invalid attribute: ${refusal.refused.map(({ field, reason }) => `${field}: ${reason}`).join('; ')}`;
  }
}

export class DirectoryError extends Error {
  constructor(readonly refusal: Refusal) {
    super(describe(refusal));
    this.name = 'DirectoryError';
  }
}

export const refuse = (refusal: Refusal): never => {
  throw new DirectoryError(refusal);
};

/**
 * A store write whose refusals become the directory's: a taken name, members that are no
 * users, and a stale version, unless `leavingLostRaces` (a write at the version read, which
 * versioned-write.ts retries on a lost race and words itself).
 */
export async function refusingStoreErrors<T>(
  entity: 'user' | 'group',
  write: () => Promise<T>,
  { leavingLostRaces = false } = {},
): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof NameTakenError) refuse({ kind: 'name_taken', entity });
    if (error instanceof ExternalIdTakenError) refuse({ kind: 'external_id_taken', entity });
    if (error instanceof UnknownMembersError) refuse({ kind: 'unknown_members', userIds: error.userIds });
    if (error instanceof TooManyMemberChangesError) refuse({ kind: 'too_many_member_changes', changes: error.changes, most: error.most });
    if (error instanceof StaleVersionError && !leavingLostRaces) refuse({ kind: 'stale_version', entity, current: error.current });
    throw error;
  }
}
