/**
 * The directory: users, groups, memberships, attributes and API keys, and every
 * rule of them, in one place that each door (the workspace API in
 * server/handlers/, SCIM in server/scim/, the admin command in server/admin/)
 * goes through. A door translates its wire to the directory's inputs and the
 * directory's records and refusals (errors.ts) back to its wire; it decides
 * nothing. docs/architecture.md draws the layers; the lint holds them.
 */
import type { AuditPage, AuditQuery } from '../store/records.js';
import type { Store } from '../store/repositories.js';
import { canonicalId } from './ids.js';
import { attributeDirectory } from './attributes.js';
import { changeFeed, DEFAULT_EVENT_RETENTION_DAYS } from './change-feed.js';
import { groupDirectory } from './groups.js';
import { keyDirectory } from './keys.js';
import { userDirectory, type UserDirectoryOptions } from './users.js';
import { webhookDirectory, type WebhookDirectoryOptions } from './webhooks.js';

interface DirectoryOptions extends UserDirectoryOptions {
  /** How far back the change feed reaches (EVENT_RETENTION_DAYS; default 30). */
  eventRetentionDays?: number;
  /** Where webhooks may deliver (WEBHOOK_ALLOW_PRIVATE), and how host names resolve. */
  webhooks?: WebhookDirectoryOptions;
}

export function createDirectory(
  store: Store,
  { eventRetentionDays = DEFAULT_EVENT_RETENTION_DAYS, webhooks = {}, ...users }: DirectoryOptions = {},
) {
  return {
    users: userDirectory(store, users),
    groups: groupDirectory(store),
    attributes: attributeDirectory(store),
    keys: keyDirectory(store),
    /** Every committed change, in the order of commit, from a cursor (change-feed.ts). */
    events: changeFeed(store, { retentionDays: eventRetentionDays }),
    /** Receivers of the change events, and their deliveries (webhooks.ts). */
    webhooks: webhookDirectory(store, webhooks),
    /** The audit trail, newest first. */
    auditEvents: (query: AuditQuery): Promise<AuditPage> =>
      store.audit.list(query.targetUserId === undefined ? query : { ...query, targetUserId: canonicalId(query.targetUserId) }),
  };
}

export type Directory = ReturnType<typeof createDirectory>;

export { DirectoryError, type Refusal } from './errors.js';
export { canonicalId } from './ids.js';
export { membersAsSeen, sightOf, userAsSeen, WHOLE_SIGHT, type SeenMember, type SeenUser, type Sight } from './sight.js';
export { ADMIN_CLI, SERVICE } from '../store/records.js';
export type { NewUser, UserChange, UserDirectory, UserReference } from './users.js';
export { DEFAULT_PASSWORD_HISTORY } from './users.js';
export type { GroupDirectory, NewGroup } from './groups.js';
export type { Grantor, NewApiKey } from './keys.js';
export type { NewWebhook, WebhookDirectoryOptions } from './webhooks.js';
export type { DirectoryOptions };
export type { EventTypeFilter, FeedAnswer, FeedRequest } from './change-feed.js';
export { DEFAULT_EVENT_RETENTION_DAYS } from './change-feed.js';
export type * from '../store/records.js';
