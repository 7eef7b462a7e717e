/**
 * Refuses query parameters an operation does not declare.
 *
 * express-openapi-validator refuses unknown parameters by name, but names its
 * query parser drops or reads as nested (`?[=1`, `?%26%5B=x`, `?a%5Bb=1`)
 * never reach it, so such requests passed; the contract's fuzzing found them.
 * This guard reads the raw URL.
 */
import type { RequestHandler } from 'express';
import type { ContractOperation } from '../../lib/contract/operations.js';
import { ServiceError } from '../service-errors.js';

/** What is wrong with the query of `originalUrl` for an operation declaring `declared`, or undefined. */
export function undeclaredQuery(originalUrl: string, declared: readonly string[]): string | undefined {
  const start = originalUrl.indexOf('?');
  if (start === -1 || start === originalUrl.length - 1) return undefined;
  if (declared.length === 0) return 'this operation takes no query parameters';
  const unknown = [...new URLSearchParams(originalUrl.slice(start + 1)).keys()].find((name) => !declared.includes(name));
  return unknown === undefined ? undefined : `unknown query parameter ${JSON.stringify(unknown.slice(0, 40))}`;
}

export function refuseUndeclaredQuery(operation: ContractOperation): RequestHandler {
  return (req, _res, next) => {
    const message = undeclaredQuery(req.originalUrl, operation.queryParameters);
    if (message === undefined) return void next();
    next(new ServiceError(400, 'invalid_request', `Invalid request: /query: ${message}`, [{ path: '/query', message }]));
  };
}
