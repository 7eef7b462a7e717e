/**
 * The SCIM contract's operations (openapi/scim) as the server routes and
 * authorises them and as the gate compares the app's routing table with the
 * contracts: so that openapi/ stays the single source of truth.
 */
import type { operations } from '../../generated/scim/types.js';
import { type OpenApiDocument, readContract, resolveReference } from './document.js';
import { idempotencyKeyUse, type IdempotencyKeyUse } from './idempotency-key.js';
import { PERMISSIONS, type Permission, type RequiredPermission } from './operations.js';

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
  /** The query parameters the operation declares, by name. */
  queryParameters: string[];
  /** Whether it takes an Idempotency-Key, and keeps its answer for the retries (idempotency-key.ts). */
  idempotencyKey: IdempotencyKeyUse;
}

function permissionOf(operationId: string, value: unknown): ScimOperation['permission'] {
  if (value === 'authenticated' || PERMISSIONS.includes(value as Permission)) return value as ScimOperation['permission'];
  throw new Error(`SCIM operation ${operationId} has no valid x-permission (found ${JSON.stringify(value)})`);
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** Every operation of the SCIM contract, in its order. */
export const SCIM_OPERATIONS: readonly ScimOperation[] = Object.entries(SCIM_DOCUMENT.paths as Record<string, OpenApiDocument>).flatMap(
  ([path, item]) =>
    Object.entries(item as Record<string, { operationId: string; 'x-permission'?: unknown; parameters?: OpenApiDocument[] }>)
      .filter(([method]) => METHODS.has(method))
      .map(([method, operation]) => ({
        operationId: operation.operationId as ScimOperationId,
        method: method as ScimOperation['method'],
        route: SCIM_BASE_PATH + path.replace(/\{(\w+)\}/g, ':$1'),
        permission: permissionOf(operation.operationId, operation['x-permission']),
        queryParameters: (operation.parameters ?? [])
          .map((parameter) => resolveReference(SCIM_DOCUMENT, parameter)!)
          .filter((parameter) => parameter.in === 'query')
          .map((parameter) => parameter.name as string),
        idempotencyKey: idempotencyKeyUse(SCIM_DOCUMENT, operation as OpenApiDocument),
      })),
);

const schemas = SCIM_DOCUMENT.components.schemas as Record<string, OpenApiDocument>;

/**
 * The bounds of a SCIM request's work, as the contract declares them: the operations of a
 * PATCH, the emails a User keeps, the members a Group's request names. A PATCH is checked
 * against them after it is applied too, where the contract cannot see.
 */
export const SCIM_LIMITS = {
  patchOperations: schemas.PatchRequest!.properties.Operations.maxItems as number,
  emails: schemas.UserInput!.properties.emails.maxItems as number,
  members: schemas.GroupInput!.properties.members.maxItems as number,
} as const;
