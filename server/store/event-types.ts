/**
 * The change feed's names for the audit trail's operations: each audited
 * operation is one type of change event, and each type names its resource.
 * The one table both directions read.
 */
import { present } from '../../lib/present.js';
import type { AuditOperation, ChangeEventType, ResourceType } from './records.js';

export const EVENT_TYPE_OF: Record<AuditOperation, ChangeEventType> = {
  createUser: 'user.created',
  updateUser: 'user.updated',
  deleteUser: 'user.deleted',
  logoutUser: 'user.logged_out',
  updateUserAttributes: 'user.attributes_updated',
  createGroup: 'group.created',
  updateGroup: 'group.updated',
  deleteGroup: 'group.deleted',
  addUserGroup: 'group.member_added',
  removeUserGroup: 'group.member_removed',
  createApiKey: 'api_key.created',
  updateApiKey: 'api_key.updated',
  revokeApiKey: 'api_key.revoked',
  createWebhook: 'webhook.created',
  updateWebhook: 'webhook.updated',
  disableWebhook: 'webhook.disabled',
  deleteWebhook: 'webhook.deleted',
};

const OPERATION_OF = new Map(Object.entries(EVENT_TYPE_OF).map(([operation, type]) => [type, operation as AuditOperation]));

/** The audit operations of these event types. */
export const operationsOf = (types: readonly ChangeEventType[]): AuditOperation[] =>
  types.map((type) => present(OPERATION_OF.get(type), `the operation of ${type}`));

/** Every event type, for a filter by prefix (`user.*`). */
export const EVENT_TYPES = Object.values(EVENT_TYPE_OF);

export const resourceTypeOf = (type: ChangeEventType) => type.slice(0, type.indexOf('.')) as ResourceType;
