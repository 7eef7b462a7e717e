/**
 * What the contract's validator refuses, as the contract's answers: 400
 * invalid_request naming every problem (a weak password as weak_password, with
 * what the policy wants), 404, 405 with Allow, 413 and 415. Knows the request
 * bodies and the contract's shapes, so that the error handler need not: it
 * runs right after the validator (contractValidation) and hands on a
 * ServiceError.
 */
import type { ErrorRequestHandler, Request } from 'express';
import { OPERATIONS } from '../../lib/contract/operations.js';
import { passwordPolicyViolation } from '../password/policy.js';
import { type ErrorDetail, ServiceError, routeNotFound, shortened } from '../service-errors.js';

const PASSWORD_PATH = '/body/target_user/password';
/** Validator error codes that mean "breaks the password policy", not "is not a string". */
const POLICY_ERROR_CODES = new Set(['pattern.openapi.validation', 'minLength.openapi.validation', 'maxLength.openapi.validation']);

/** A refusal of express-openapi-validator: its status and every problem it found. */
export interface ValidatorError {
  status: number;
  errors: { path: string; message: string; errorCode?: string }[];
  headers?: { Allow?: string };
}

export function isValidatorError(error: unknown): error is ValidatorError {
  return (
    error instanceof Error &&
    typeof (error as Partial<ValidatorError>).status === 'number' &&
    Array.isArray((error as Partial<ValidatorError>).errors)
  );
}

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

/** The validator's refusal as the contract's answer. */
function fromValidator(error: ValidatorError, req: Request): ServiceError | undefined {
  switch (error.status) {
    case 400:
      return invalidRequest(error.errors, req);
    case 404:
      return routeNotFound(req.method, req.path);
    case 405:
      return new ServiceError(
        405,
        'method_not_allowed',
        `Method ${shortened(req.method)} is not allowed on ${shortened(req.path)}`,
        undefined,
        {
          ...(error.headers?.Allow ? { Allow: error.headers.Allow } : {}),
        },
      );
    case 413:
      return new ServiceError(413, 'payload_too_large', 'Request body is too large');
    case 415:
      return new ServiceError(415, 'unsupported_media_type', 'Request body must be application/json');
    default:
      return undefined;
  }
}

/** After the validator: its refusals become ServiceErrors; anything else goes on as it was. */
export const validationErrors: ErrorRequestHandler = (error, req, _res, next) => {
  next((isValidatorError(error) && fromValidator(error, req)) || error);
};
