/**
 * The SCIM contract (openapi/scim) as the service routes and validates it:
 * its operations with their permissions, and express-openapi-validator over
 * every request under /scim/v2 (and every answer, when asked).
 */
import type { ErrorRequestHandler, RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import type { operations } from '../../generated/scim/types.js';
import { type OpenApiDocument, readContract } from '../../lib/contract/document.js';
import { PERMISSIONS, type Permission, type RequiredPermission } from '../../lib/contract/operations.js';

export const SCIM_DOCUMENT: Readonly<OpenApiDocument> = readContract('scim');

/** Where SCIM is served: the path of the contract's server. */
export const SCIM_BASE_PATH = new URL((SCIM_DOCUMENT.servers as [{ url: string }])[0].url).pathname;

export type ScimOperationId = keyof operations;

export interface ScimOperation {
  operationId: ScimOperationId;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The path as express routes it, under SCIM_BASE_PATH: `/scim/v2/Users/:id`. */
  route: string;
  permission: Exclude<RequiredPermission, 'none'>;
}

function permissionOf(operationId: string, value: unknown): ScimOperation['permission'] {
  if (value === 'authenticated' || PERMISSIONS.includes(value as Permission)) return value as ScimOperation['permission'];
  throw new Error(`SCIM operation ${operationId} has no valid x-permission (found ${JSON.stringify(value)})`);
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** Every operation of the SCIM contract, in its order. */
export const SCIM_OPERATIONS: readonly ScimOperation[] = Object.entries(SCIM_DOCUMENT.paths as Record<string, OpenApiDocument>).flatMap(
  ([path, item]) =>
    Object.entries(item as Record<string, { operationId: string; 'x-permission'?: unknown }>)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]) => ({
        operationId: operation.operationId as ScimOperationId,
        method: method as ScimOperation['method'],
        route: SCIM_BASE_PATH + path.replace(/\{(\w+)\}/g, ':$1'),
        permission: permissionOf(operation.operationId, operation['x-permission']),
      })),
);

/** The SCIM contract's validator: requests always, answers when asked (VALIDATE_RESPONSES). Its refusals go to scimErrorHandler. */
export function scimContractValidation({ responses }: { responses: boolean }): (RequestHandler | ErrorRequestHandler)[] {
  return OpenApiValidator.middleware({
    apiSpec: structuredClone(SCIM_DOCUMENT) as unknown as OpenAPIV3.DocumentV3_1,
    validateApiSpec: false,
    validateRequests: { allowUnknownQueryParameters: false },
    validateResponses: responses,
    validateSecurity: false,
    validateFormats: true,
    ajvFormats: { mode: 'full' },
    ignorePaths: (path: string) => !path.startsWith(`${SCIM_BASE_PATH}/`),
  });
}
