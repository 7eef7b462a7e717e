/**
 * What the service needs from a database, one repository per kind of record,
 * over one database handle. Implementations are async and know nothing of
 * HTTP; `openStore` (open-store.ts) gives the one DATABASE_URL names.
 */
import type { EventOrder } from './event-order.js';
import type {
  ApiKeyRecord,
  AttributeChanges,
  NewGroupRecord,
  UserAttributes,
  AuditPage,
  AuditQuery,
  ChangeAuthor,
  Group,
  MembershipChange,
  NewUserRecord,
  UserChanges,
  UserListing,
  UsernameReport,
  UserQuery,
  ExpectedVersions,
  DeliveryTurn,
  ChangeEvent,
  DueDelivery,
  NewWebhookRecord,
  StoredWebhook,
  Webhook,
  WebhookAttempt,
  WebhookChanges,
  WebhookSecrets,
  FeedPage,
  GroupChange,
  FeedQuery,
  StoredUser,
  StoredUserFields,
  StoredSession,
  UserSearch,
  UserSearchResult,
  GroupAmendment,
  GroupRewrite,
  GroupSearch,
  GroupSearchResult,
  StoredGroup,
  IdempotencyClaim,
  IdempotentRequest,
  KeptAnswer,
  WithheldAnswer,
} from './records.js';

export interface UserRepository {
  list(query: UserQuery): Promise<UserListing>;
  /** The users a SCIM filter matches, a page at a time, with the total; the filter runs in the database. */
  search(query: UserSearch): Promise<UserSearchResult>;
  findById(userId: string): Promise<StoredUser | undefined>;
  /** The user without its groups, as a rewrite reads it before it writes. */
  findFieldsById(userId: string): Promise<StoredUserFields | undefined>;
  findByUsername(username: string): Promise<StoredUser | undefined>;
  /** Creates the user in the system group "All Users". Throws NameTakenError. */
  create(user: NewUserRecord, by: ChangeAuthor): Promise<StoredUser>;
  /**
   * Applies the changes atomically, moving the user's version; undefined when there is no
   * such user. Throws NameTakenError, and StaleVersionError when the user is at none of the
   * `expected` versions.
   */
  update(userId: string, changes: UserChanges, by: ChangeAuthor, expected?: ExpectedVersions): Promise<StoredUser | undefined>;
  /**
   * Deletes the user and their memberships; false when there is no such user. Throws
   * StaleVersionError when the user is at none of the `expected` versions.
   */
  delete(userId: string, by: ChangeAuthor, expected?: ExpectedVersions): Promise<boolean>;
  /**
   * Moves the instant from which the user's sessions are valid to `at`, or just past the
   * one stored if that is later (so that it only moves forward); undefined when there is no such user.
   */
  logout(userId: string, at: string, by: ChangeAuthor): Promise<StoredUser | undefined>;
  /** Usernames stored before the username profile that it refuses (migration 0003). */
  listUsernameReports(): Promise<UsernameReport[]>;
  /** The hashes of the user's latest `count` passwords, newest first, the current one included. */
  recentPasswordHashes(userId: string, count: number): Promise<string[]>;
}

export interface GroupRepository {
  list(): Promise<Group[]>;
  /** The groups a SCIM filter matches, a page at a time, with their members and the total. */
  search(query: GroupSearch): Promise<GroupSearchResult>;
  /** The group with its version and, unless `withMembers` is false, its members; undefined when there is no such group. */
  find(groupId: string, options?: { withMembers?: boolean }): Promise<StoredGroup | undefined>;
  /** Throws NameTakenError, and UnknownMembersError for members that are not users. */
  create(group: NewGroupRecord, by: ChangeAuthor): Promise<Group>;
  /**
   * Sets what `rewrite` gives, at once, with one audit event per change (the group's
   * fields, each membership added or removed). A system group keeps its name
   * ('system_group'), and its members unless `fromSystemGroup` ('system_group_members'). Throws NameTakenError, UnknownMembersError,
   * StaleVersionError when the group is at none of the `expected` versions, and TooManyMemberChangesError when it
   * would add and remove more than `mostMemberChanges` members.
   */
  rewrite(
    groupId: string,
    rewrite: GroupRewrite,
    by: ChangeAuthor,
    expected?: ExpectedVersions,
    options?: { fromSystemGroup?: boolean; mostMemberChanges?: number },
  ): Promise<GroupChange>;
  /**
   * Applies the amendment at once, as `rewrite` does, reading only the members it names; the
   * group answered holds its members only when `withMembers` asks for them.
   */
  amend(
    groupId: string,
    amendment: GroupAmendment,
    by: ChangeAuthor,
    options?: { expected?: ExpectedVersions; withMembers?: boolean; fromSystemGroup?: boolean },
  ): Promise<GroupChange>;
  /**
   * Deletes a group and its memberships; the system group cannot be deleted. Throws
   * StaleVersionError when the group is at none of the `expected` versions.
   */
  delete(groupId: string, by: ChangeAuthor, expected?: ExpectedVersions): Promise<'deleted' | 'no_group' | 'system_group'>;
  addMember(userId: string, groupId: string, by: ChangeAuthor): Promise<MembershipChange>;
  /** Refuses a system group ('system_group') unless `fromSystemGroup` allows it. */
  removeMember(userId: string, groupId: string, by: ChangeAuthor, options?: { fromSystemGroup?: boolean }): Promise<MembershipChange>;
}

/** Users' preferences (Kasm's user attributes). */
export interface AttributesRepository {
  /** The user's attributes, the defaults where never set; undefined when there is no such user. */
  find(userId: string): Promise<UserAttributes | undefined>;
  /** Applies the changes at once and gives every attribute; undefined when there is no such user. */
  update(userId: string, changes: AttributeChanges, by: ChangeAuthor): Promise<UserAttributes | undefined>;
}

export interface ApiKeyRepository {
  insert(key: ApiKeyRecord, by: ChangeAuthor): Promise<void>;
  /** Inserts the key only when no key exists yet, even with several instances starting at once; tells whether it did. */
  insertFirst(key: ApiKeyRecord, by: ChangeAuthor): Promise<boolean>;
  find(apiKey: string): Promise<ApiKeyRecord | undefined>;
  list(): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; false when there is no such key or it was revoked already. */
  revoke(apiKey: string, when: string, by: ChangeAuthor): Promise<boolean>;
  /** Changes an active key's permissions or expiry (null: never expires); undefined when there is no such key or it is revoked. */
  update(apiKey: string, changes: ApiKeyChanges, by: ChangeAuthor): Promise<ApiKeyRecord | undefined>;
  /**
   * Notes that the key authenticated a request at `when`, unless a use at or after `since` is
   * noted already (so that instances racing write once): no change of the directory, never audited.
   */
  noteUse(apiKey: string, when: string, since: string): Promise<void>;
}

/** What an operator may change of a key after it is made: never its name, secret or id. */
export type ApiKeyChanges = Partial<Pick<ApiKeyRecord, 'permissions' | 'expires'>>;

/** The web console's sessions (server/console/sessions.ts). */
export interface ConsoleSessionRepository {
  create(session: StoredSession): Promise<void>;
  find(tokenDigest: string): Promise<StoredSession | undefined>;
  /** Notes a request under the session at `when`, unless one at or after `since` is noted already. */
  touch(tokenDigest: string, when: string, since: string): Promise<void>;
  delete(tokenDigest: string): Promise<void>;
  /** Deletes the sessions that have ended by `now` (past their expiry, or last seen before `idleSince`); returns how many. */
  prune(now: string, idleSince: string): Promise<number>;
}

/**
 * The audit trail. Events are written by the other repositories, each in its
 * change's transaction; here they are read, and pruned once out of retention.
 */
export interface AuditRepository {
  /** Newest first. */
  list(query: AuditQuery): Promise<AuditPage>;
  /** The change feed: events in the order of commit after a place in it, and the head of the log. */
  feed(query: FeedQuery): Promise<FeedPage>;
  /** The last place in the order of commit (0 for an empty log). */
  head(): Promise<number>;
  /** Deletes up to `limit` of the oldest events older than `before`; returns how many. */
  prune(before: string, limit: number): Promise<number>;
  /**
   * Deletes the heads of users' chains whose events are all deleted, looking at up to `limit`
   * after the user id `after`; resolves with the last user id looked at (none once past the last).
   */
  pruneChainHeads(after: string | undefined, limit: number): Promise<{ next: string | undefined; deleted: number }>;
  /** Where the order of events stands: the last position reached, and the last restore (event-order.ts). */
  order(): Promise<EventOrder>;
}

/** Webhooks, and the deliveries of change events to them (docs/events.md). */
export interface WebhookRepository {
  create(webhook: NewWebhookRecord, by: ChangeAuthor): Promise<Webhook>;
  /** Every webhook, oldest first. */
  list(): Promise<Webhook[]>;
  find(webhookId: string): Promise<StoredWebhook | undefined>;
  /** Applies the changes; enabling clears why it was disabled and its failures. Undefined when there is no such webhook. */
  update(webhookId: string, changes: WebhookChanges, by: ChangeAuthor): Promise<Webhook | undefined>;
  /** Sets its secrets (a rotation); undefined when there is no such webhook. */
  rotate(webhookId: string, secrets: WebhookSecrets, by: ChangeAuthor): Promise<Webhook | undefined>;
  /** Deletes it with its deliveries; false when there is no such webhook. */
  delete(webhookId: string, by: ChangeAuthor): Promise<boolean>;
  /** Disables an enabled webhook, saying why (the service's own decision); false when it was not enabled. */
  disable(webhookId: string, reason: string, by: ChangeAuthor): Promise<boolean>;
  /**
   * One turn of the delivery engine, in one transaction (one commit, however much it holds):
   * records the attempts made since the last turn and what they came to; reads the change
   * log on from where the last dispatch stopped and makes a delivery of each event for each
   * enabled webhook that takes it, with the place it stopped at (one instance at a time: an
   * instance that finds another dispatching leaves it to that one), or, with no webhook
   * enabled, moves the place to the log's head unread; then claims the deliveries due,
   * within `claim`'s bounds. Gives the events dispatched (none without a webhook) and the claimed.
   */
  turn(work: DeliveryTurn): Promise<{ dispatched: ChangeEvent[]; claimed: DueDelivery[] }>;
  /**
   * Called as an instance's delivery engine starts: the claims that can only be a dead
   * process's are released, to be sent again at once. On SQLite, one instance: all of them
   * (a kill -9 left them). On PostgreSQL another instance may hold its own: none, they end
   * with their leases. Gives how many were released.
   */
  releaseOrphanedClaims(): Promise<number>;
  /** Queues the events it takes again: one by its id, or every one committed since a time; gives how many. */
  redeliver(webhookId: string, which: { eventId: string } | { since: string }, now: string): Promise<number>;
  /** Queues a delivery of a body of its own (a ping). */
  queuePayload(webhookId: string, event: { eventId: string; eventType: string; body: string }, now: string): Promise<void>;
  /** Its latest attempts, newest first. */
  attempts(webhookId: string, limit: number): Promise<WebhookAttempt[]>;
  /** When the oldest delivery still waiting became due; undefined when none waits. */
  oldestPending(): Promise<string | undefined>;
}

export interface StoreStats {
  /** PostgreSQL's connection pool: connections open, idle, and requests waiting for one. */
  pool?: { total: number; idle: number; waiting: number };
}

/** Requests sent with an Idempotency-Key and their answers (idempotency-repository.ts). */
export interface IdempotencyRepository {
  /** What is kept of the key's request, unless it has expired by `now`. */
  find(apiKey: string, key: string, now: string): Promise<IdempotentRequest | undefined>;
  /** Keeps the request's answer (or, withheld, its status); a key another request holds is left as it is. */
  keep(claim: IdempotencyClaim, answer: KeptAnswer | WithheldAnswer): Promise<void>;
  /** Forgets the key if it expired by `now`, so that a new request may take it. */
  forgetExpired(apiKey: string, key: string, now: string): Promise<void>;
  /** Deletes up to `limit` keys expired by `now`; resolves with how many. */
  prune(now: string, limit: number): Promise<number>;
}

export interface Store {
  readonly users: UserRepository;
  readonly groups: GroupRepository;
  readonly attributes: AttributesRepository;
  readonly apiKeys: ApiKeyRepository;
  readonly consoleSessions: ConsoleSessionRepository;
  readonly audit: AuditRepository;
  readonly webhooks: WebhookRepository;
  readonly idempotency: IdempotencyRepository;
  /** How the database connection is doing, for metrics. */
  stats(): StoreStats;
  /**
   * Why the database cannot take traffic now (unreachable, frozen, out of
   * connections, out of space), or undefined when it can. Answers within
   * `withinMs`, whatever the database does.
   */
  unreadyBecause(withinMs: number): Promise<string | undefined>;
  close(): Promise<void>;
}
