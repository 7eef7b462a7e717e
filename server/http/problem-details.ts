/**
 * RFC 9457 problem details, beside the contract's own members: every error
 * answer of the workspace API carries `type`, `title`, `status`, `detail` and
 * `instance` as well as Kasm's `error_message`, `code` and `errors`, so that a
 * problem-details client and a Kasm client both read it. `type` is the
 * address of the code's section of docs/errors.md as the service serves it
 * (/docs/errors); the titles and usual statuses here are the ones that page
 * shows (problem-details.test.ts holds them together).
 */
import { STATUS_CODES } from 'node:http';
import type { ErrorCode } from '../service-errors.js';

/** The media type of RFC 9457, which a client asks for with `Accept`. */
export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

/** Where the service serves docs/errors.md (the contract's getErrorReference). */
export const ERROR_REFERENCE_PATH = '/docs/errors';

/** Each code's title (the same for every occurrence, as RFC 9457 asks) and the status it usually comes with. */
export const PROBLEM_TYPES: Record<ErrorCode, { status: number; title: string }> = {
  invalid_request: { status: 400, title: 'Invalid request' },
  weak_password: { status: 400, title: 'Weak password' },
  password_reused: { status: 400, title: 'Password used recently' },
  invalid_username: { status: 400, title: 'Invalid username' },
  invalid_cursor: { status: 400, title: 'Invalid cursor' },
  cursor_expired: { status: 410, title: 'Cursor expired' },
  invalid_webhook_url: { status: 400, title: 'Invalid webhook URL' },
  webhook_not_found: { status: 404, title: 'Webhook not found' },
  listing_too_large: { status: 400, title: 'Listing too large' },
  invalid_credentials: { status: 401, title: 'Invalid credentials' },
  session_ended: { status: 401, title: 'Session ended' },
  invalid_csrf_token: { status: 403, title: 'Invalid CSRF token' },
  permission_denied: { status: 403, title: 'Permission denied' },
  grant_exceeds_key: { status: 403, title: 'Grant exceeds the key' },
  api_key_not_found: { status: 404, title: 'API key not found' },
  user_not_found: { status: 404, title: 'User not found' },
  group_not_found: { status: 404, title: 'Group not found' },
  not_found: { status: 404, title: 'Not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  username_taken: { status: 409, title: 'Username taken' },
  group_name_taken: { status: 409, title: 'Group name taken' },
  external_id_taken: { status: 409, title: 'External id taken' },
  invalid_attribute: { status: 400, title: 'Invalid attribute' },
  ssh_private_key: { status: 400, title: 'SSH private key sent' },
  version_mismatch: { status: 412, title: 'Version mismatch' },
  already_member: { status: 409, title: 'Already a member' },
  not_member: { status: 409, title: 'Not a member' },
  system_group: { status: 409, title: 'System group' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  rate_limited: { status: 429, title: 'Rate limited' },
  internal_error: { status: 500, title: 'Internal error' },
  unavailable: { status: 503, title: 'Database unreachable' },
  database_busy: { status: 503, title: 'Database busy' },
  storage_full: { status: 503, title: 'Storage full' },
  not_ready: { status: 503, title: 'Not ready' },
  request_timeout: { status: 408, title: 'Request timeout' },
  too_many_connections: { status: 503, title: 'Too many connections' },
  idempotency_key_in_use: { status: 409, title: 'Idempotency key in use' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused' },
  idempotency_answer_not_kept: { status: 409, title: 'Idempotent answer not kept' },
};

/** Where and when a problem happened: what its `type` and `instance` are made of. */
export interface Occurrence {
  status: number;
  /**
   * The address the client reached the service at (`https://host`), for an absolute `type`; a
   * relative one without it; null where no error reference is served (the sample data server),
   * whose problems are RFC 9457's `about:blank`, titled by their status.
   */
  origin?: string | null | undefined;
  /** The request's id (X-Request-Id), for `instance` and `request_id`. */
  requestId?: string | undefined;
}

export interface ProblemMembers {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance?: string;
  request_id?: string;
}

/** The RFC 9457 members of an error answer with this code and message. */
export function problemMembers(code: ErrorCode, message: string, { status, origin, requestId }: Occurrence): ProblemMembers {
  return {
    type: origin === null ? 'about:blank' : `${origin ?? ''}${ERROR_REFERENCE_PATH}#${code}`,
    title: origin === null ? (STATUS_CODES[status] ?? PROBLEM_TYPES[code].title) : PROBLEM_TYPES[code].title,
    status,
    detail: message,
    // The occurrence is the request: named by its id, as a URN when the id is the service's own UUID.
    ...(requestId !== undefined && UUID.test(requestId) ? { instance: `urn:uuid:${requestId}` } : {}),
    ...(requestId === undefined ? {} : { request_id: requestId }),
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
