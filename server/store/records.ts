/**
 * The records of the directory, as the store keeps and returns them and the
 * directory (server/directory/) hands them to its doors. They are written here
 * rather than taken from a contract's generated types, so that the store knows
 * no wire: each door's handlers answer with them, and the compiler checks there
 * that a record fits the contract's schema.
 */
import type { Permission, SortableField } from '../../lib/contract/operations.js';
import type { Filter as UserFilter } from 'scim2-parse-filter';

export type { Permission, UserFilter };

/** A group a user belongs to, as a user's record names it. */
export interface GroupMembership {
  group_id: string;
  name: string;
}

export interface User {
  user_id: string;
  username: string;
  first_name: string;
  last_name: string;
  phone: string;
  organization: string;
  locked: boolean;
  disabled: boolean;
  /** Every user is the directory's own; Kasm's other realms (LDAP, SAML) have no users here. */
  realm: 'local';
  groups: GroupMembership[];
  created: string;
  password_set_date: string | null;
  last_session: string | null;
  sessions_valid_from: string | null;
}

export interface Group {
  group_id: string;
  name: string;
  description: string;
  priority: number;
  is_system: boolean;
}

/** A user's preferences (Kasm's user attributes). */
export interface UserAttributes {
  user_attributes_id: string;
  user_id: string;
  default_image: string | null;
  show_tips: boolean;
  auto_login_kasm: boolean | null;
  toggle_control_panel: boolean;
  theme: 'Light' | 'Dark' | 'Auto';
  chat_sfx: boolean;
  ssh_public_key: string;
  preferred_language: string;
  preferred_timezone: string;
}

/** The attributes a request may change: every one but the ids. */
export type AttributeChanges = Partial<Omit<UserAttributes, 'user_id' | 'user_attributes_id'>>;

/** A group as created: its id and name, and a description (default empty) and priority (default the lowest). */
export type NewGroupRecord = Pick<Group, 'group_id' | 'name'> &
  Partial<Pick<Group, 'description' | 'priority'>> & {
    /** The identity provider's id for it (SCIM's externalId). */
    external_id?: string | null;
    /** Users to make members at once, in the same transaction (SCIM's create with members). */
    members?: readonly string[];
  };

/** A group's own fields a change may set (its members aside). */
export interface GroupFieldChanges extends Partial<Pick<Group, 'name' | 'description' | 'priority'>> {
  /** The identity provider's id for it (SCIM's externalId); null takes it away. */
  external_id?: string | null;
}

/** Profile fields a client may set; `user_id`, `realm` and `groups` are deliberately absent (no mass assignment). */
export type UserProfile = Pick<User, 'username' | 'first_name' | 'last_name' | 'phone' | 'organization' | 'locked' | 'disabled'>;

/** One of a user's e-mail addresses, as SCIM gives them (RFC 7643, 4.1.2). */
export interface Email {
  value: string;
  type?: string;
  primary?: boolean;
  display?: string;
}

/** What SCIM keeps of a user that this API's record does not show (migration 0007). */
export interface DirectoryFields {
  external_id: string | null;
  emails: Email[];
}

export interface NewUserRecord extends UserProfile, Partial<DirectoryFields> {
  user_id: string;
  password_hash: string | null;
  created: string;
}

/** A partial update: only the fields present change. */
export interface UserChanges extends Partial<UserProfile>, Partial<DirectoryFields> {
  password_hash?: string;
  password_set_date?: string;
  /** With a new password_hash: how many of the user's latest passwords to keep, the new one included (PASSWORD_HISTORY; 0 keeps none). */
  passwords_kept?: number;
}

/** A user as stored: the record this API shows, its version, and what SCIM keeps besides. */
export interface StoredUser extends Versioned<User> {
  directory: DirectoryFields;
}

/**
 * A user as a replacement or a PATCH reads it: everything but the groups, which no rewrite
 * sets and which cost a read a join and a sort (a third of its time on 100,000 users).
 */
export interface StoredUserFields extends Versioned<Omit<User, 'groups'>> {
  directory: DirectoryFields;
}

/** A place in the order of a listing: a user's value of the sort field, and its user_id for ties. */
export interface SortPosition {
  value: string;
  userId: string;
}

export interface UserQuery {
  pageSize: number;
  sortBy: SortableField;
  sortDirection: 'asc' | 'desc';
  /** Where the page starts: after skipping this many users, or right after this position. */
  start: { skip: number } | { after: SortPosition };
  /** Only the users whose username, first or last name, or both names as "first last", contain this text in any case. */
  matching?: string | undefined;
  /** Only the members of this group (its canonical id). */
  memberOf?: string | undefined;
  /** Whether to count every user too (default true); a listing read batch by batch counts only once. */
  countTotal?: boolean;
}

/** A page of users matching a SCIM filter (server/store/scim-filter.ts). */
export interface UserSearch {
  /** The filter's tree as scim2-parse-filter reads it; every user when absent. */
  filter?: UserFilter | undefined;
  sortBy: 'username' | 'first_name' | 'last_name' | 'created' | 'modified' | 'user_id';
  sortDirection: 'asc' | 'desc';
  /** How many matching users to skip, and at most how many to give (SCIM's startIndex - 1 and count). */
  offset: number;
  limit: number;
}

export interface UserSearchResult {
  users: StoredUser[];
  /** How many users match in all. */
  total: number;
}

export interface UserListing {
  users: User[];
  /** How many users there are in all; -1 when not counted (`countTotal: false`). */
  total: number;
  /** Whether any user follows the last one of this page. */
  more: boolean;
}

/** A stored username that breaks the username profile, kept as it was so that no user is lost. */
export interface UsernameReport {
  user_id: string;
  username: string;
  reason: string;
  reported: string;
}

/** What adding a user to a group, or removing one, came to. */
/** What a change of a group came to: the group changed, or why not (a system group keeps its name, and its members unless allowed). */
export type GroupChange = StoredGroup | 'no_group' | 'system_group' | 'system_group_members';

export type MembershipChange = 'done' | 'no_user' | 'no_group' | 'already_member' | 'not_member' | 'system_group';

/** An API key as stored: never the secret itself, only its digest (server/keys/api-keys.ts). */
export interface ApiKeyRecord {
  api_key: string;
  name: string;
  secret_digest: string;
  permissions: Permission[];
  created: string;
  expires: string | null;
  revoked: string | null;
  /** When the key last authenticated a request, to the minute (keys/last-use.ts); null when it never has. */
  last_used: string | null;
}

/** A web console session as stored: its token's digest, never the token. */
export interface StoredSession {
  tokenDigest: string;
  apiKey: string;
  created: string;
  lastSeen: string;
  expires: string;
}

/** What a change was, as its audit event names it: the workspace API's operation that makes such a change. */
export type AuditOperation =
  | 'createUser'
  | 'updateUser'
  | 'deleteUser'
  | 'addUserGroup'
  | 'removeUserGroup'
  | 'createGroup'
  | 'deleteGroup'
  | 'createApiKey'
  | 'revokeApiKey'
  | 'updateApiKey'
  | 'updateUserAttributes'
  | 'logoutUser'
  | 'updateGroup'
  | 'createWebhook'
  | 'updateWebhook'
  | 'disableWebhook'
  | 'deleteWebhook';

/** What a change was, as the change feed tells it (docs/events.md); one type per audit operation (event-types.ts). */
export type ChangeEventType =
  | 'user.created'
  | 'user.updated'
  | 'user.deleted'
  | 'user.logged_out'
  | 'user.attributes_updated'
  | 'group.created'
  | 'group.updated'
  | 'group.deleted'
  | 'group.member_added'
  | 'group.member_removed'
  | 'api_key.created'
  | 'api_key.updated'
  | 'api_key.revoked'
  | 'webhook.created'
  | 'webhook.updated'
  | 'webhook.disabled'
  | 'webhook.deleted';

/** What a change event is about. */
export type ResourceType = 'user' | 'group' | 'api_key' | 'webhook';

/** An event type, or every type of one resource (`user.*`): what a follower or a webhook takes. */
export type EventTypeFilter = ChangeEventType | `${ResourceType}.*`;

/** A change as the feed and webhooks tell it: the audit event's row, thin (ids, version, field names). */
export interface ChangeEvent {
  event_id: string;
  type: ChangeEventType;
  timestamp: string;
  data: {
    resource: { type: ResourceType; id: string; version: number | null };
    member?: { user_id: string };
    changed: string[];
    actor: { type: 'api_key' | 'scim' | 'admin' | 'service'; id: string | null };
    request_id: string | null;
  };
}

/** A change event with its place in the order of commit, which the feed's cursors name. */
export interface PlacedChangeEvent {
  position: number;
  event: ChangeEvent;
}

/** What a follower of the feed asks for (the store's side of get_events). */
export interface FeedQuery {
  /** After this place in the order of commit; from the first event at or after `since` when absent. */
  after?: number;
  /** The oldest time the feed reaches, for a follower without `after`. */
  since: string;
  /** Only these types (none: every type). */
  types?: readonly ChangeEventType[];
  /** Only events naming this user, group, API key or webhook. */
  resourceId?: string;
  limit: number;
}

export interface FeedPage {
  events: PlacedChangeEvent[];
  /** The last place in the order of commit when the page was read (0 for an empty log): every event up to it is final. */
  head: number;
}

/** An audit event (migration 0004): one change, who made it, and through which door. */
export interface AuditEvent {
  event_id: string;
  time: string;
  operation: AuditOperation;
  actor: string;
  protocol: 'workspace' | 'scim' | null;
  request_id: string | null;
  target_user_id: string | null;
  target_group_id: string | null;
  target_api_key: string | null;
  target_webhook_id: string | null;
  changed_fields: string[];
}

/**
 * Who makes a change, for its audit event: the API key's id (or `admin-cli` for
 * `npm run admin`, `service` for what the service does on its own), and the request.
 */
export interface ChangeAuthor {
  actor: string;
  requestId: string | null;
  /** The protocol a change came through, for its audit event; null for the admin command and the service itself. */
  protocol: 'workspace' | 'scim' | null;
  /** What the key that made the change may do (the directory's rules read it); absent for the admin command and the service. */
  permissions?: readonly Permission[];
  /** The Idempotency-Key the request came with: recorded in the change's own transaction. */
  idempotency?: IdempotencyClaim;
}

/** A request that came with an Idempotency-Key, as its change records it. */
export interface IdempotencyClaim {
  /** The API key that sent it. */
  apiKey: string;
  key: string;
  fingerprint: string;
  /** A token of the request's own (a UUID): the row is this request's, and no other request may make a change under it. */
  holder: string;
  created: string;
  expires: string;
}

/** An answer as kept for a key's retries. */
export interface KeptAnswer {
  status: number;
  /** The headers that describe the answer (its media type, ETag, Location). */
  headers: Record<string, string>;
  body: string;
}

/** An answer known but not kept (it showed a secret): only its status is. */
export interface WithheldAnswer {
  status: number;
  withheld: true;
}

/** What is kept of a request sent with an Idempotency-Key; `answer` is absent until it is known. */
export interface IdempotentRequest {
  fingerprint: string;
  holder: string;
  created: string;
  answer?: KeptAnswer | WithheldAnswer;
}

/** Thrown when another request holds the Idempotency-Key a change was made under: the change is undone. */
export class IdempotencyKeyHeldError extends Error {
  constructor() {
    super('another request holds the idempotency key');
    this.name = 'IdempotencyKeyHeldError';
  }
}

/** Changes made with `npm run admin`. */
export const ADMIN_CLI: ChangeAuthor = { actor: 'admin-cli', requestId: null, protocol: null };
/** Changes the service makes on its own (the first API key on an empty database). */
export const SERVICE: ChangeAuthor = { actor: 'service', requestId: null, protocol: null };

export interface AuditQuery {
  pageSize: number;
  /** The page starts after this event (the last of the page before), or at the newest. */
  after?: string;
  targetUserId?: string;
  actor?: string;
  /** Only the changes of this kind. */
  operation?: AuditOperation;
  /** Events at or after this time (RFC 3339). */
  since?: string;
  /** Events before this time. */
  until?: string;
}

export interface AuditPage {
  events: AuditEvent[];
  /** Whether older events follow the last of this page. */
  more: boolean;
}

/** A member of a group: the user's id and username. */
export interface GroupMember {
  user_id: string;
  username: string;
}

/** A group as stored: the record this API shows, its version, and what SCIM shows besides. */
export interface StoredGroup extends Versioned<Group> {
  created: string;
  external_id: string | null;
  /** Its members, by username; absent when the read was asked to leave them out (a group may hold every user). */
  members?: GroupMember[];
}

/**
 * A group set as a whole (SCIM's replacement and PATCH): what is given changes, and
 * `members`, when given, becomes the complete list of members.
 */
export interface GroupRewrite extends GroupFieldChanges {
  members?: readonly string[];
}

/**
 * Changes to a group named one by one (SCIM's PATCH of members, as providers send it): who
 * joins, who leaves, and the group's fields when given. Unlike a rewrite, it needs
 * no member list, so that a change to a group of many members reads and writes only the
 * members it names.
 */
export interface GroupAmendment extends GroupFieldChanges {
  /** Users to add; those already members stay as they are. */
  addMembers: readonly string[];
  /** Users to remove; those not members are left out. */
  removeMembers: readonly string[];
}

/** A page of groups matching a SCIM filter. */
export interface GroupSearch {
  filter?: UserFilter | undefined;
  /** Whether to read each group's members: a page of big groups is mostly its members. */
  withMembers: boolean;
  sortBy: 'name' | 'created' | 'modified' | 'group_id';
  sortDirection: 'asc' | 'desc';
  offset: number;
  limit: number;
}

export interface GroupSearchResult {
  groups: StoredGroup[];
  total: number;
}

/** Thrown when a group would get members that are not users; nothing was written. */
/** A write that would change more memberships than the caller allows; nothing of it is written. */
export class TooManyMemberChangesError extends Error {
  constructor(
    readonly changes: number,
    readonly most: number,
  ) {
    super(`the write would change ${changes} memberships, more than the ${most} one write may change`);
    this.name = 'TooManyMemberChangesError';
  }
}

export class UnknownMembersError extends Error {
  constructor(readonly userIds: readonly string[]) {
    super(`no user has the id ${userIds.slice(0, 5).join(', ')}${userIds.length > 5 ? ', …' : ''}`);
    this.name = 'UnknownMembersError';
  }
}

/** A record with the version it is at and when that version was made (migration 0006). */
export interface Versioned<T> {
  record: T;
  version: number;
  modified: string;
}

/**
 * The versions a write requires its record to be at (`If-Match`): the write is refused when
 * the record is at none of them. A write without one is made whatever the version.
 */
export type ExpectedVersions = readonly number[];

/** Thrown when a record is not at any of the versions a write expected; nothing was written. */
export class StaleVersionError extends Error {
  constructor(readonly current: number) {
    super(`the record is at version ${current}`);
    this.name = 'StaleVersionError';
  }
}

/** Thrown when a unique name (a username, a group name) is already in use. */
/** Another user or group of the same kind has the identity provider's id (SCIM's externalId, RFC 7643 3.1). */
export class ExternalIdTakenError extends Error {
  constructor() {
    super('external_id is already taken');
    this.name = 'ExternalIdTakenError';
  }
}

export class NameTakenError extends Error {
  constructor(readonly field: 'username' | 'group_name') {
    super(`${field} is already taken`);
    this.name = 'NameTakenError';
  }
}

/** A receiver of change events (migration 0010), as answers show it: never its secret. */
export interface Webhook {
  webhook_id: string;
  url: string;
  /** The event type filters it takes (`user.*`, `group.created`); null for every event. */
  event_types: EventTypeFilter[] | null;
  description: string;
  enabled: boolean;
  exclude_own_changes: boolean;
  created: string;
  disabled_reason: string | null;
}

/** The secrets a webhook's deliveries are signed with: the current one, and for a while after a rotation the one before. */
export interface WebhookSecrets {
  current: string;
  previous: string | null;
  /** Until when the previous secret signs too. */
  previousUntil: string | null;
}

export interface StoredWebhook {
  record: Webhook;
  /** The key that made it: its changes are left out when `exclude_own_changes`. */
  ownerApiKey: string;
  secrets: WebhookSecrets;
  /** Since when every delivery to it has failed; null when the last one succeeded. */
  failingSince: string | null;
}

export interface NewWebhookRecord {
  webhook_id: string;
  url: string;
  event_types: EventTypeFilter[] | null;
  description: string;
  exclude_own_changes: boolean;
  owner_api_key: string;
  secret: string;
  created: string;
}

/** What a request may change of a webhook. */
export type WebhookChanges = Partial<Pick<Webhook, 'url' | 'event_types' | 'description' | 'enabled' | 'exclude_own_changes'>>;

/** A delivery due now, claimed by this instance until its lease ends. */
export interface DueDelivery {
  deliveryId: string;
  webhookId: string;
  url: string;
  secrets: WebhookSecrets;
  /** Attempts made before this one. */
  attempts: number;
  eventId: string;
  eventType: string;
  /** The body to POST; undefined when its event is no longer kept (out of retention). */
  body: string | undefined;
}

/** What a turn of the delivery engine records, reads and claims (WebhookRepository.turn). */
export interface DeliveryTurn {
  now: string;
  /** The attempts made since the last turn. */
  settle: readonly AttemptOutcome[];
  /** How many events of the log to dispatch at most. */
  dispatchLimit: number;
  /** Claims up to `room` due deliveries until `leaseUntil`, at most `perWebhook` minus those each webhook has in hand (claimed, not yet sent). */
  claim: { leaseUntil: string; room: number; perWebhook: number; inHand: ReadonlyMap<string, number> };
}

/** What an attempt came to, as the delivery engine settles it. */
export interface AttemptOutcome {
  delivery: DueDelivery;
  attemptedAt: string;
  durationMs: number;
  status: number | null;
  error: string | null;
  responseExcerpt: string | null;
  /** Delivered (a 2xx), to be tried again at a time, or given up. */
  result: { kind: 'delivered' } | { kind: 'retry'; at: string } | { kind: 'given_up' };
}

/** One attempt, as get_webhook_deliveries shows it. */
export interface WebhookAttempt {
  event_id: string;
  event_type: string;
  attempt: number;
  attempted_at: string;
  duration_ms: number;
  status: number | null;
  error: string | null;
  response_excerpt: string | null;
  next_attempt_at: string | null;
}
