/**
 * The contract's one error shape, and the errors the service answers with.
 * Anything thrown that is not an ServiceError becomes a 500 with no details.
 */
import type { components } from '../generated/workspace/types.js';
import type { StoreFaultKind } from './store/faults.js';
import { inspect } from 'node:util';
import { entityTag } from './http/entity-tags.js';
import { type Occurrence, problemMembers } from './http/problem-details.js';

export type ErrorBody = components['schemas']['Error'];
export type ErrorCode = ErrorBody['code'];
export type ErrorDetail = components['schemas']['ErrorDetail'];

export class ServiceError extends Error {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly details?: ErrorDetail[],
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'ServiceError';
  }

  /** The body of this error, with the request's address and id where they are known. */
  toBody(occurrence: Omit<Occurrence, 'status'> = {}): ErrorBody {
    return errorBody(this.code, this.message, this.details, { ...occurrence, status: this.status });
  }
}

/**
 * The contract's error body: every error answer, from a route or from the HTTP server itself,
 * is written by this. RFC 9457's members first (http/problem-details.ts), then Kasm's.
 */
export function errorBody(code: ErrorCode, message: string, details: ErrorDetail[] | undefined, occurrence: Occurrence): ErrorBody {
  return { ...problemMembers(code, message, occurrence), error_message: message, code, ...(details ? { errors: details } : {}) };
}

/** A path or method echoed in a message, cut short so that a long URL cannot bloat the answer. */
export const shortened = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** No route answers this method and path. */
export const routeNotFound = (method: string, path: string) =>
  new ServiceError(404, 'not_found', `Not found: ${shortened(method)} ${shortened(path)}`);

/**
 * An error and its causes in one line a person can act on, each with its
 * code: "cannot open sqlite:/srv/db/workspace.db: database migration failed:
 * attempt to write a readonly database (SQLITE_READONLY)".
 */
export function explain(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current !== undefined && depth < 8; depth++) {
    const message = current instanceof Error ? current.message : typeof current === 'string' ? current : inspect(current);
    const code = (current as NodeJS.ErrnoException | undefined)?.code;
    const part = typeof code === 'string' && !message.includes(code) ? `${message} (${code})` : message;
    if (!parts.at(-1)?.endsWith(part)) parts.push(part);
    current = current instanceof Error ? current.cause : undefined;
  }
  return parts.join(': ');
}

/**
 * One answer for every credential failure, by header or by body, so that keys
 * cannot be probed. Every 401 names the Basic scheme, as HTTP asks (RFC 9110, 11.6.1).
 */
/** What a 401 asks for: HTTP Basic credentials, or (to the console's own scripts) a console session. */
export type Challenge = 'Basic' | 'Session';
export const invalidCredentials = (challenge: Challenge = 'Basic') =>
  new ServiceError(401, 'invalid_credentials', 'Invalid API key or secret', undefined, {
    'WWW-Authenticate': `${challenge} realm="workspace"`,
  });
/** A console session that has ended (idle, too old, signed out, its key revoked or expired). */
export const sessionEnded = () =>
  new ServiceError(401, 'session_ended', 'The console session has ended: sign in again', undefined, {
    'WWW-Authenticate': 'Session realm="workspace"',
  });
export const invalidCsrfToken = (header: string) =>
  new ServiceError(403, 'invalid_csrf_token', `A console session's request needs its CSRF token in ${header}`);
export const permissionDenied = (permission: string) =>
  new ServiceError(403, 'permission_denied', `This API key lacks the ${permission} permission`);
export const userNotFound = () => new ServiceError(404, 'user_not_found', 'User not found');
export const groupNotFound = () => new ServiceError(404, 'group_not_found', 'Group not found');
/** `If-Match` named versions the record is no longer at. */
export const versionMismatch = (current: number) =>
  new ServiceError(412, 'version_mismatch', `The user is not at the version If-Match names; it is now at ${entityTag(current)}`);
export const usernameTaken = () => new ServiceError(409, 'username_taken', 'Username is already taken');
export const internalError = () => new ServiceError(500, 'internal_error', 'Internal server error');

/** The answer to each kind of database fault (store/faults.ts): its code, its wording, and when to come back. */
const UNAVAILABLE: Record<StoreFaultKind, { code: ErrorCode; message: string; retryAfterSeconds: number }> = {
  unreachable: { code: 'unavailable', message: 'The service cannot reach its database', retryAfterSeconds: 5 },
  busy: { code: 'database_busy', message: 'The database is busy', retryAfterSeconds: 1 },
  full: { code: 'storage_full', message: 'The database is out of space', retryAfterSeconds: 30 },
};

export function databaseUnavailable(kind: StoreFaultKind): ServiceError {
  const { code, message, retryAfterSeconds } = UNAVAILABLE[kind];
  return new ServiceError(503, code, `${message}; retry in ${retryAfterSeconds} s`, undefined, {
    'Retry-After': String(retryAfterSeconds),
  });
}
