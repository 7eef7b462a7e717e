/**
 * SCIM's error answers (RFC 7644, 3.12): every failure, from the body parser,
 * the SCIM contract's validator, the shared rules or the database, as the
 * SCIM document's Error, always with a `scimType` (openapi/scim Error.yaml).
 */
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { SCIM_BASE_PATH } from '../../lib/contract/scim-operations.js';
import type { components } from '../../generated/scim/types.js';
import { errorHandlerAnswering, toServiceError } from '../http/error-handler.js';
import { type ValidatorError, isValidatorError } from '../http/validation-errors.js';
import { type ErrorCode, ServiceError, routeNotFound, shortened } from '../service-errors.js';

export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_MEDIA_TYPE = 'application/scim+json';

export type ScimErrorBody = components['schemas']['Error'];
export type ScimType = ScimErrorBody['scimType'];

/** A failure SCIM names itself: thrown by the SCIM handlers, answered as it is. */
export class ScimFailure extends Error {
  constructor(
    readonly status: number,
    readonly scimType: ScimType,
    detail: string,
    readonly headers?: Record<string, string>,
  ) {
    super(detail);
    this.name = 'ScimFailure';
  }
}

export const invalidFilter = (detail: string) => new ScimFailure(400, 'invalidFilter', detail);
export const invalidValue = (detail: string) => new ScimFailure(400, 'invalidValue', detail);
export const invalidSyntax = (detail: string) => new ScimFailure(400, 'invalidSyntax', detail);
export const invalidPath = (detail: string) => new ScimFailure(400, 'invalidPath', detail);
export const noTarget = (detail: string) => new ScimFailure(400, 'noTarget', detail);
export const mutability = (detail: string) => new ScimFailure(400, 'mutability', detail);
export const resourceNotFound = (kind: 'User' | 'Group') => new ScimFailure(404, 'notFound', `${kind} not found`);

/**
 * The shared rules' answers as SCIM words them; the compiler asks for every code, so a new
 * one cannot reach a SCIM client without its scimType.
 */
const SCIM_TYPES: Record<ErrorCode, ScimType> = {
  invalid_request: 'invalidSyntax',
  weak_password: 'invalidValue',
  password_reused: 'invalidValue',
  invalid_username: 'invalidValue',
  invalid_cursor: 'invalidValue',
  cursor_expired: 'invalidValue',
  invalid_webhook_url: 'invalidValue',
  webhook_not_found: 'notFound',
  listing_too_large: 'tooMany',
  invalid_attribute: 'invalidValue',
  ssh_private_key: 'invalidValue',
  invalid_credentials: 'invalidCredentials',
  permission_denied: 'permissionDenied',
  // The console's sessions are the workspace API's: neither reaches a SCIM client.
  session_ended: 'invalidCredentials',
  invalid_csrf_token: 'permissionDenied',
  grant_exceeds_key: 'permissionDenied',
  api_key_not_found: 'notFound',
  user_not_found: 'notFound',
  group_not_found: 'notFound',
  not_found: 'notFound',
  method_not_allowed: 'methodNotAllowed',
  username_taken: 'uniqueness',
  group_name_taken: 'uniqueness',
  external_id_taken: 'uniqueness',
  already_member: 'uniqueness',
  not_member: 'noTarget',
  system_group: 'mutability',
  version_mismatch: 'versionMismatch',
  payload_too_large: 'tooLarge',
  unsupported_media_type: 'unsupportedMediaType',
  rate_limited: 'rateLimited',
  internal_error: 'internalError',
  unavailable: 'unavailable',
  database_busy: 'unavailable',
  storage_full: 'unavailable',
  not_ready: 'unavailable',
  request_timeout: 'unavailable',
  too_many_connections: 'unavailable',
  idempotency_key_in_use: 'idempotencyKeyInUse',
  idempotency_key_reused: 'idempotencyKeyReused',
  idempotency_answer_not_kept: 'idempotencyAnswerNotKept',
};

/** A ServiceError of the shared rules as a SCIM failure; a bearer token is named beside Basic on a 401. */
export function scimFailureOf(error: ServiceError): ScimFailure {
  const headers =
    error.status === 401 ? { ...error.headers, 'WWW-Authenticate': 'Bearer realm="workspace", Basic realm="workspace"' } : error.headers;
  return new ScimFailure(error.status, SCIM_TYPES[error.code], error.message, headers);
}

/**
 * The SCIM contract's refusals: a body or query it does not describe. A value of the
 * wrong type or form is `invalidValue`; an attribute where none may be, `invalidSyntax`.
 */
function validatorFailure(error: ValidatorError, method: string, path: string): ScimFailure {
  const detail = error.errors
    .slice(0, 10)
    .map((problem) => `${problem.path.replace(/^\/body/, '') || 'the body'} ${problem.message}`)
    .join('; ');
  switch (error.status) {
    case 400: {
      const structural = error.errors.every((problem) => problem.errorCode === 'additionalProperties.openapi.validation');
      return new ScimFailure(400, structural ? 'invalidSyntax' : 'invalidValue', shortened(detail));
    }
    case 404:
      return scimFailureOf(routeNotFound(method, path));
    case 405:
      return new ScimFailure(
        405,
        'methodNotAllowed',
        `${method} is not allowed here`,
        error.headers?.Allow ? { Allow: error.headers.Allow } : {},
      );
    case 413:
      return new ScimFailure(413, 'tooLarge', 'Request body is too large');
    case 415:
      return new ScimFailure(415, 'unsupportedMediaType', 'Request body must be application/scim+json or application/json');
    default:
      return scimFailureOf(toServiceError(error));
  }
}

export function scimFailure(error: unknown, method: string, path: string): ScimFailure {
  if (error instanceof ScimFailure) return error;
  if (isValidatorError(error) && !(error instanceof ServiceError)) return validatorFailure(error, method, path);
  return scimFailureOf(toServiceError(error));
}

export const scimErrorBody = (failure: ScimFailure): ScimErrorBody => ({
  schemas: [ERROR_SCHEMA],
  status: String(failure.status),
  scimType: failure.scimType,
  detail: failure.message,
});

/** The last SCIM route: a path under /scim/v2 that names no resource. */
/** Whether a request is SCIM's (its path under /scim/v2): its failures are answered in SCIM's shape. */
export const isScimRequest = (req: Request) => isScimPath(req.path);

/** Whether a path is under /scim/v2. */
export const isScimPath = (path: string) => path === SCIM_BASE_PATH || path.startsWith(`${SCIM_BASE_PATH}/`);

export const scimNotFound: RequestHandler = (req) => {
  throw routeNotFound(req.method, req.originalUrl.split('?')[0] ?? req.path);
};

/** Every error under /scim/v2, answered in SCIM's shape and media type. */
export const scimErrorHandler: ErrorRequestHandler = errorHandlerAnswering((error, req) => {
  const failure = scimFailure(error, req.method, req.originalUrl.split('?')[0] ?? req.path);
  return { status: failure.status, headers: failure.headers, body: scimErrorBody(failure), type: SCIM_MEDIA_TYPE };
});
