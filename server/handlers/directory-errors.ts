/**
 * The directory's refusals as the workspace API answers them: the contract's
 * error code and status, and the body path of the field at fault. The words
 * are the directory's; only a version is shown as this API shows it (an ETag).
 */
import { DirectoryError, type Refusal } from '../directory/index.js';
import { entityTag } from '../http/entity-tags.js';
import { type ErrorCode, type ErrorDetail, ServiceError } from '../service-errors.js';

/** Where in a request each rule's field is. */
const USERNAME = '/body/target_user/username';
const PASSWORD = '/body/target_user/password';
const GROUP_NAME = '/body/target_group/name';
const ATTRIBUTES = '/body/target_user_attributes';

type Answer = { status: number; code: ErrorCode; details?: ErrorDetail[]; message?: string };

function answerTo(refusal: Refusal): Answer {
  switch (refusal.kind) {
    case 'not_found':
      return {
        status: 404,
        code: ({ user: 'user_not_found', group: 'group_not_found', webhook: 'webhook_not_found', api_key: 'api_key_not_found' } as const)[
          refusal.entity
        ],
      };
    case 'name_taken':
      return { status: 409, code: refusal.entity === 'user' ? 'username_taken' : 'group_name_taken' };
    // Set through SCIM only; answered here all the same.
    case 'external_id_taken':
      return { status: 409, code: 'external_id_taken' };
    case 'stale_version':
      return {
        status: 412,
        code: 'version_mismatch',
        message: `The ${refusal.entity} is not at the version If-Match names; it is now at ${entityTag(refusal.current)}`,
      };
    case 'system_group':
      return { status: 409, code: 'system_group' };
    case 'already_member':
      return { status: 409, code: 'already_member' };
    case 'invalid_api_key':
      return {
        status: 400,
        code: 'invalid_request',
        details: [{ path: `/body/target_api_key/${refusal.field}`, message: refusal.reason }],
      };
    case 'grant_exceeds_key':
      return { status: 403, code: 'grant_exceeds_key' };
    case 'not_member':
      return { status: 409, code: 'not_member' };
    case 'invalid_username':
      return { status: 400, code: 'invalid_username', details: [{ path: USERNAME, message: refusal.reason }] };
    case 'weak_password':
      return { status: 400, code: 'weak_password', details: [{ path: PASSWORD, message: refusal.reason }] };
    case 'password_reused':
      return { status: 400, code: 'password_reused', details: [{ path: PASSWORD, message: refusal.reason }] };
    case 'invalid_group_name':
      return { status: 400, code: 'invalid_request', details: [{ path: GROUP_NAME, message: refusal.reason }] };
    case 'invalid_attributes':
      return {
        status: 400,
        code: refusal.privateKey ? 'ssh_private_key' : 'invalid_attribute',
        details: refusal.refused.map(({ field, reason }) => ({ path: `${ATTRIBUTES}/${field}`, message: reason })),
      };
    case 'invalid_cursor':
      return { status: 400, code: 'invalid_cursor', details: [{ path: '/body/after', message: refusal.reason }] };
    case 'cursor_expired':
      return { status: 410, code: 'cursor_expired' };
    case 'invalid_webhook_url':
      return { status: 400, code: 'invalid_webhook_url', details: [{ path: '/body/target_webhook/url', message: refusal.reason }] };
    // None is asked of the directory by this API (SCIM's filters, group members and replacements).
    case 'invalid_filter':
    case 'unknown_members':
    case 'too_many_member_changes':
      return { status: 400, code: 'invalid_request' };
  }
}

export function workspaceError(error: DirectoryError): ServiceError {
  const { status, code, details, message } = answerTo(error.refusal);
  return new ServiceError(status, code, message ?? error.message, details);
}

/** A handler whose directory refusals are answered as this API's errors. */
export function answeringRefusals<Args extends unknown[], Result>(handler: (...args: Args) => Promise<Result>) {
  return async (...args: Args): Promise<Result> => {
    try {
      return await handler(...args);
    } catch (error) {
      if (error instanceof DirectoryError) throw workspaceError(error);
      throw error;
    }
  };
}
