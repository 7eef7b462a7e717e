/**
 * Refuses a query string on an operation that declares no query parameters.
 *
 * express-openapi-validator refuses unknown parameters by name, but names its
 * query parser drops (`?[=1`, `?%26%5B=x`) never reach it, so such requests
 * passed; the contract's fuzzing found them. This guard reads the raw URL.
 */
import type { RequestHandler } from 'express';
import type { ContractOperation } from '../../lib/contract/operations.js';
import { ServiceError } from '../service-errors.js';

export function refuseUndeclaredQuery(operation: ContractOperation): RequestHandler {
  return (req, _res, next) => {
    if (operation.queryParameters.length > 0) return void next();
    const query = req.originalUrl.indexOf('?');
    if (query === -1 || query === req.originalUrl.length - 1) return void next();
    const message = 'this operation takes no query parameters';
    next(new ServiceError(400, 'invalid_request', `Invalid request: /query: ${message}`, [{ path: '/query', message }]));
  };
}
