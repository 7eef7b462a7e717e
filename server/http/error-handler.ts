/**
 * The one error handler: whatever went wrong (the body parser, the contract
 * validator, a handler, an unknown path), the answer is the contract's Error
 * shape in JSON, never HTML and never a stack trace.
 */
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { OPERATIONS } from '../../lib/contract/operations.js';
import { ServiceError, type ErrorDetail, databaseUnavailable, explain, internalError } from '../service-errors.js';
import { StoreUnavailableError } from '../store/faults.js';
import { passwordPolicyViolation } from '../password/policy.js';
import { requestLogger } from './request-logging.js';
import { sendJson } from './send-json.js';

const PASSWORD_PATH = '/body/target_user/password';
/** Validator error codes that mean "breaks the password policy", not "is not a string". */
const POLICY_ERROR_CODES = new Set(['pattern.openapi.validation', 'minLength.openapi.validation', 'maxLength.openapi.validation']);

interface ValidatorError {
  status: number;
  errors: { path: string; message: string; errorCode?: string }[];
  headers?: { Allow?: string };
}

interface BodyParserError {
  type: string;
  status: number;
}

function isValidatorError(error: unknown): error is ValidatorError {
  return (
    error instanceof Error &&
    typeof (error as Partial<ValidatorError>).status === 'number' &&
    Array.isArray((error as Partial<ValidatorError>).errors)
  );
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return (
    error instanceof Error &&
    typeof (error as Partial<BodyParserError>).type === 'string' &&
    typeof (error as Partial<BodyParserError>).status === 'number'
  );
}

/** A path or method echoed in a message, cut short so a long URL cannot bloat the answer. */
const echo = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** Operations whose body may carry a password, by the path the validator reports. */
const PASSWORD_ROUTES = new Set(OPERATIONS.filter((operation) => operation.takesPassword).map((operation) => operation.path));

/** Fields that must not come together, by path: Ajv reports them only as "/body: must NOT be valid". */
const EXCLUSIVE_FIELDS = new Map(
  OPERATIONS.filter((operation) => operation.exclusiveFields.length > 0).map((operation) => [operation.path, operation.exclusiveFields]),
);

/**
 * A `not` the validator reports is one of the contract's two refusals: fields that must
 * not come together (at the body), or a field the service sets (ReadOnlyField).
 */
function describeRefusal(error: ValidatorError['errors'][number], req: Request): ValidatorError['errors'][number] {
  if (error.errorCode !== 'not.openapi.validation') return error;
  const fields = EXCLUSIVE_FIELDS.get(req.path);
  if (fields && error.path === '/body') return { ...error, message: `must not have ${fields.join(' and ')} together` };
  return { ...error, message: 'must not be sent: the service sets it' };
}

/**
 * A field that may be `null` (`anyOf: [X, null]`) gets, besides what is wrong with its
 * value, "must be null" and "must match a schema in anyOf": true, and no help.
 */
function withoutNullAlternative(errors: ValidatorError['errors']): ValidatorError['errors'] {
  const isNoise = (error: ValidatorError['errors'][number]) =>
    (error.errorCode === 'type.openapi.validation' && error.message === 'must be null') || error.errorCode === 'anyOf.openapi.validation';
  return errors
    .filter((error) => !isNoise(error) || !errors.some((other) => other.path === error.path && !isNoise(other)))
    .map((error) => ({ ...error, message: error.message.replace(/^must be (\w+),null$/, 'must be $1 or null') }));
}

/**
 * What a password in this request breaks, if the operation takes one. Worked
 * out here rather than read from the validator, which stops at the first
 * problem and whose pattern message says nothing useful.
 */
function passwordViolation(req: Request): string | undefined {
  if (!PASSWORD_ROUTES.has(req.path)) return undefined;
  const password = (req.body as { target_user?: { password?: unknown } } | undefined)?.target_user?.password;
  return typeof password === 'string' ? passwordPolicyViolation(password) : undefined;
}

function invalidRequest(errors: ValidatorError['errors'], req: Request): ServiceError {
  const violation = passwordViolation(req);
  const isPolicyError = (e: ValidatorError['errors'][number]) => e.path === PASSWORD_PATH && POLICY_ERROR_CODES.has(e.errorCode ?? '');
  // A password refused for another reason (say, as an unknown field) is reported as the validator says.
  const otherPasswordError = errors.some((e) => e.path === PASSWORD_PATH && !isPolicyError(e));
  const details: ErrorDetail[] = withoutNullAlternative(errors)
    .filter((e) => !isPolicyError(e))
    .map((e) => describeRefusal(e, req))
    .map(({ path, message }) => ({ path, message }));
  if (violation !== undefined && !otherPasswordError) {
    const policyDetail = { path: PASSWORD_PATH, message: violation };
    if (details.length === 0) return new ServiceError(400, 'weak_password', `Password ${violation}`, [policyDetail]);
    details.push(policyDetail);
  }
  const summary = details.map(({ path, message }) => `${path}: ${message}`).join('; ');
  return new ServiceError(400, 'invalid_request', `Invalid request: ${summary}`, details);
}

export function toServiceError(error: unknown, req: Request): ServiceError {
  if (error instanceof ServiceError) return error;
  if (error instanceof StoreUnavailableError) return databaseUnavailable(error.kind);
  if (isBodyParserError(error)) {
    switch (error.type) {
      case 'entity.parse.failed':
        return new ServiceError(400, 'invalid_request', 'Invalid request: the body is not valid JSON');
      case 'entity.too.large':
        return new ServiceError(413, 'payload_too_large', 'Request body is too large');
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return new ServiceError(415, 'unsupported_media_type', 'Request body must be application/json in UTF-8');
      default:
        if (error.status >= 400 && error.status < 500)
          return new ServiceError(400, 'invalid_request', 'Invalid request: the body could not be read');
    }
  }
  if (isValidatorError(error)) {
    switch (error.status) {
      case 400:
        return invalidRequest(error.errors, req);
      case 404:
        return notFound(req);
      case 405:
        return new ServiceError(405, 'method_not_allowed', `Method ${echo(req.method)} is not allowed on ${echo(req.path)}`, undefined, {
          ...(error.headers?.Allow ? { Allow: error.headers.Allow } : {}),
        });
      case 413:
        return new ServiceError(413, 'payload_too_large', 'Request body is too large');
      case 415:
        return new ServiceError(415, 'unsupported_media_type', 'Request body must be application/json');
    }
  }
  return internalError();
}

function notFound(req: Request): ServiceError {
  return new ServiceError(404, 'not_found', `Not found: ${echo(req.method)} ${echo(req.path)}`);
}

/** The last route: anything no route answered. */
export const notFoundHandler: RequestHandler = (req) => {
  throw notFound(req);
};

export const errorHandler: ErrorRequestHandler = (error, req, res, _next) => {
  const serviceError = toServiceError(error, req);
  if (error instanceof StoreUnavailableError) {
    // A fault of the moment, not a bug: its cause goes to the log, without a stack.
    requestLogger(req, res).warn({ fault: error.kind, cause: explain(error.cause) }, 'database unavailable');
  } else if (serviceError.status >= 500 && !(error instanceof ServiceError)) {
    // The cause goes to the log, under the request id the client was given; the client gets nothing more.
    requestLogger(req, res).error({ err: error }, 'request failed');
  }
  // Too late for an answer (a listing cut off mid-stream, a 413 sent before the body was read):
  // the connection goes, which the client sees as a cut answer. Express's own handler would do
  // the same, and print the stack to stderr besides.
  if (res.headersSent) return void req.socket.destroy();
  // Answered before its body was read (413 on the declared length, say): close rather than read the rest.
  if (!req.complete) res.set('Connection', 'close');
  sendJson(req, res.status(serviceError.status).set(serviceError.headers ?? {}), serviceError.toBody());
};
