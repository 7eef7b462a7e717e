/**
 * The tables as Kysely sees them. Booleans are stored as 0/1 by SQLite and
 * timestamps as RFC 3339 text, which sorts chronologically.
 */
import type { Generated } from 'kysely';

export interface Database {
  users: UsersTable;
  groups: GroupsTable;
  user_groups: UserGroupsTable;
  api_keys: ApiKeysTable;
  username_reports: UsernameReportsTable;
  audit_events: AuditEventsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  webhook_dispatch: { id: number; position: number | string };
  user_attributes: UserAttributesTable;
  password_history: PasswordHistoryTable;
  idempotency_keys: IdempotencyKeysTable;
  console_sessions: ConsoleSessionsTable;
  user_event_heads: UserEventHeadsTable;
  audit_positions: AuditPositionsTable;
}

/** One row (id 1): the largest position of an event the retention deleted (migration 0019; audit-repository.ts). */
export interface AuditPositionsTable {
  id: number;
  last_pruned: number | string;
  /** When `admin restore` last put a backup in place: the change feed's cursors read before it are expired. */
  restored_at: string | null;
}

/**
 * The position of a user's newest event, for users whose row does not hold it: every user on
 * PostgreSQL, deleted users on SQLite (migration 0018; user-event-chains.ts).
 */
export interface UserEventHeadsTable {
  user_id: string;
  position: number | string;
}

/** The web console's sessions (server/console/sessions.ts). */
export interface ConsoleSessionsTable {
  /** SHA-256 of the session's token, hex: the token itself is only in the browser's cookie. */
  token_digest: string;
  api_key: string;
  created: string;
  /** When a request last came under the session, to the minute. */
  last_seen: string;
  /** When it ends at the latest. */
  expires: string;
}

/**
 * A request sent with an Idempotency-Key (migration 0015): written in the transaction of the
 * change it made, its answer added once known; gone once `expires` has passed.
 */
export interface IdempotencyKeysTable {
  /** The API key that sent it: a key is its sender's alone. */
  api_key: string;
  idempotency_key: string;
  /** The request it was sent with (idempotency.ts, fingerprintOf), hex. */
  fingerprint: string;
  /** A token of the request that holds it, its own: no other request may make a change under the key. */
  holder: string;
  created: string;
  expires: string;
  /** The answer's status and, as JSON, its headers and body; null until the answer is known. */
  status: number | null;
  answer: string | null;
}

/** The hashes of a user's latest passwords, the current one included (migration 0014), so that one is not set again. */
export interface PasswordHistoryTable {
  user_id: string;
  password_hash: string;
  set_at: string;
}

/** A user's preferences, once any was set (migration 0005). */
export interface UserAttributesTable {
  user_id: string;
  default_image: string | null;
  show_tips: StoredBoolean;
  auto_login_kasm: StoredBoolean | null;
  toggle_control_panel: StoredBoolean;
  theme: string;
  chat_sfx: StoredBoolean;
  ssh_public_key: string;
  preferred_language: string;
  preferred_timezone: string;
}

/** One change, written with it (migration 0004). */
export interface AuditEventsTable {
  event_id: string;
  time: string;
  operation: string;
  actor: string;
  request_id: string | null;
  target_user_id: string | null;
  target_group_id: string | null;
  target_api_key: string | null;
  /** Comma-separated field names. */
  changed_fields: string;
  /** The protocol the change came through (`workspace`, `scim`); null for the admin command (migration 0008). */
  protocol: string | null;
  /** Its place in the order of commit, from 1 (migration 0009; audit-repository.ts). */
  position: Generated<number | string>;
  /** The version its resource is at after the change; null where none has one (migration 0009). */
  resource_version: number | null;
  /** The webhook made, changed or deleted (migration 0010). */
  target_webhook_id: string | null;
  /** The position of the event before it about the same user, if any (migration 0018; user-event-chains.ts). */
  previous_user_position: number | string | null;
}

/** A receiver of change events (migration 0010). */
export interface WebhooksTable {
  webhook_id: string;
  url: string;
  /** JSON: the event type filters; null for every event. */
  event_types: string | null;
  description: string;
  enabled: StoredBoolean;
  exclude_own_changes: StoredBoolean;
  owner_api_key: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  created: string;
  disabled_reason: string | null;
  failing_since: string | null;
}

/** One event to deliver to one webhook, until it is delivered or given up (migration 0010). */
export interface WebhookDeliveriesTable {
  delivery_id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  event_position: number | string | null;
  payload: string | null;
  attempts: number;
  /** `pending`, `delivered` or `failed`. */
  state: string;
  next_attempt_at: string;
  claimed_until: string | null;
  created: string;
}

/** One attempt of a delivery, as get_webhook_deliveries shows it (migration 0010). */
export interface WebhookAttemptsTable {
  delivery_id: string;
  webhook_id: string;
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

type StoredBoolean = number | boolean;

export interface UsersTable {
  user_id: string;
  username: string;
  first_name: string;
  last_name: string;
  phone: string;
  organization: string;
  locked: StoredBoolean;
  disabled: StoredBoolean;
  realm: Generated<string>;
  password_hash: string | null;
  created: string;
  password_set_date: string | null;
  last_session: string | null;
  /** Sessions started before this instant are not valid (logout_user; migration 0005). */
  sessions_valid_from: string | null;
  /** Moves with every change to what the user's representation shows (migration 0006). */
  version: Generated<number>;
  /** When the version last moved (RFC 3339); migration 0006 set it to `created` for older rows. */
  modified: string | null;
  /** The identity provider's id for the user, given through SCIM (migration 0007). */
  external_id: string | null;
  /** external_id again, unique (migration 0013); null where an older user held the same one then. */
  external_id_key: string | null;
  /** SCIM's `emails`, as JSON text (migration 0007). */
  emails: Generated<string>;
  /** SQLite only: the position of the user's newest event (migration 0018; user-event-chains.ts). */
  last_event_position?: number | null;
}

export interface GroupsTable {
  group_id: string;
  name: string;
  is_system: StoredBoolean;
  created: string;
  description: Generated<string>;
  priority: Generated<number>;
  /** Moves with every change to the group or its members (migration 0006). */
  version: Generated<number>;
  modified: string | null;
  /** The identity provider's id for the group, given through SCIM (migration 0008). */
  external_id: string | null;
  /** external_id again, unique (migration 0013); null where an older group held the same one then. */
  external_id_key: string | null;
  /**
   * The name's comparison form (server/username/group-name.ts), unique, so that no group takes a
   * look-alike of another's name (migration 0012); null for a name that was a look-alike of an
   * older one before then, kept as it was and reported by `admin status`.
   */
  name_key: string | null;
}

export interface UserGroupsTable {
  user_id: string;
  group_id: string;
}

/** Stored usernames the username profile refuses, found by migration 0003 and kept as they were. */
export interface UsernameReportsTable {
  user_id: string;
  username: string;
  reason: string;
  reported: string;
}

export interface ApiKeysTable {
  api_key: string;
  name: string;
  secret_digest: string;
  /** Comma-separated permission names. */
  permissions: string;
  created: string;
  expires: string | null;
  revoked: string | null;
  /** When the key last authenticated a request, to the minute (keys/last-use.ts). */
  last_used: string | null;
}
