/**
 * The workspace contract's operations as the server routes, validates and
 * authorises them, and as the gate checks them: so that openapi/ stays the
 * single source of truth.
 */
import type { components, operations } from '../../generated/workspace/types.js';
import { type OpenApiDocument, readContract, resolveReference } from './document.js';
import { idempotencyKeyUse, type IdempotencyKeyUse } from './idempotency-key.js';

export type OperationId = keyof operations;
export type Permission = components['schemas']['Permission'];
export type SortableField = NonNullable<components['schemas']['GetUsersRequest']['sort_by']>;
/** What an operation's `x-permission` may say: no credentials, any valid key, or one permission. */
export type RequiredPermission = 'none' | 'authenticated' | Permission;

/**
 * A way an operation takes credentials, as its `security` lists them: in the JSON body (`{}`),
 * by HTTP Basic, in the api-key headers, or as the console's session cookie.
 */
export type CredentialWay = 'body' | 'basic' | 'api-key headers' | 'session';

export interface ContractOperation {
  operationId: OperationId;
  method: 'get' | 'head' | 'post';
  /** The path as the contract writes it, e.g. `/api/public/update_user`. */
  path: string;
  permission: RequiredPermission;
  /** Whether the request may carry `target_user.password`, which the password policy governs. */
  takesPassword: boolean;
  /** The query parameters the operation declares (none, so far). */
  queryParameters: string[];
  /** Body fields that must not come together (the body schema's `not: {required: [...]}`), e.g. page and cursor. */
  exclusiveFields: string[];
  /** The JSON request body's schema, resolved; undefined when the operation takes no body. */
  requestSchema: OpenApiDocument | undefined;
  /** Whether it takes an Idempotency-Key, and keeps its answer for the retries (idempotency-key.ts). */
  idempotencyKey: IdempotencyKeyUse;
  /** The ways it takes credentials (none for the operations that need none). */
  credentialWays: CredentialWay[];
  /** Whether a request under a console session must carry its CSRF token (the operation declares the header). */
  takesCsrfToken: boolean;
}

/** The bundled workspace contract itself, as served at /openapi.json. */
export const WORKSPACE_DOCUMENT: Readonly<OpenApiDocument> = readContract('workspace');

const schemas = WORKSPACE_DOCUMENT.components.schemas as Record<string, OpenApiDocument>;

/** What an API key id may look like (the ApiKey schema's pattern), for ids that arrive where the validator does not look. */
export const API_KEY_PATTERN = new RegExp(schemas.ApiKey!.pattern as string);

/** Every permission a key can hold, in the contract's order. */
export const PERMISSIONS: readonly Permission[] = schemas.Permission!.enum;

/** The fields get_users may sort by (the GetUsersRequest schema's `sort_by` enum). */
export const SORTABLE_FIELDS: readonly SortableField[] = schemas.GetUsersRequest!.properties.sort_by.enum;

/** The console session's cookie (the consoleSession scheme's name); over TLS it carries the `__Host-` prefix. */
export const SESSION_COOKIE: string = WORKSPACE_DOCUMENT.components.securitySchemes.consoleSession.name;
/** The header a request under a console session sends its CSRF token in (the CsrfToken parameter). */
export const CSRF_TOKEN_HEADER: string = WORKSPACE_DOCUMENT.components.parameters.CsrfToken.name;

/** The largest request body the service reads (the PayloadTooLarge response's `x-body-limit-bytes`). */
export const BODY_LIMIT_BYTES: number = WORKSPACE_DOCUMENT.components.responses.PayloadTooLarge['x-body-limit-bytes'];
/** The deepest nesting of arrays and objects a request body may have (the InvalidRequest response's `x-json-depth-limit`). */
export const JSON_DEPTH_LIMIT: number = WORKSPACE_DOCUMENT.components.responses.InvalidRequest['x-json-depth-limit'];

function requiredPermission(operationId: string, value: unknown): RequiredPermission {
  if (value === 'none' || value === 'authenticated' || PERMISSIONS.includes(value as Permission)) {
    return value as RequiredPermission;
  }
  throw new Error(`operation ${operationId} has no valid x-permission (found ${JSON.stringify(value)})`);
}

const resolve = (value: unknown) => resolveReference(WORKSPACE_DOCUMENT, value as OpenApiDocument | undefined);

function takesPassword(operation: OpenApiDocument): boolean {
  const body = resolve(operation.requestBody?.content['application/json']?.schema);
  return resolve(resolve(body?.properties?.target_user)?.properties?.password) !== undefined;
}

/** Each scheme of the contract, as the way of sending credentials it is. */
const WAY_OF_SCHEME: Record<string, CredentialWay> = {
  basicAuth: 'basic',
  apiKeyHeader: 'api-key headers',
  apiKeySecretHeader: 'api-key headers',
  consoleSession: 'session',
};

function credentialWays(operation: OpenApiDocument): CredentialWay[] {
  const ways = ((operation.security ?? []) as Record<string, unknown>[]).flatMap((requirement) => {
    const schemes = Object.keys(requirement);
    // `{}`: nothing in a header, which this contract uses for the credentials in the body.
    if (schemes.length === 0) return ['body' as const];
    return schemes.map((scheme) => {
      const way = WAY_OF_SCHEME[scheme];
      if (!way) throw new Error(`operation ${String(operation.operationId)} names an unknown security scheme ${scheme}`);
      return way;
    });
  });
  return [...new Set(ways)];
}

const takesCsrfToken = (operation: OpenApiDocument) =>
  ((operation.parameters ?? []) as OpenApiDocument[]).some((parameter) => resolve(parameter)?.name === CSRF_TOKEN_HEADER);

function exclusiveFields(operation: OpenApiDocument): string[] {
  return resolve(operation.requestBody?.content['application/json']?.schema)?.not?.required ?? [];
}

/** Every operation the contract declares, in the contract's order. */
export const OPERATIONS: readonly ContractOperation[] = Object.entries(WORKSPACE_DOCUMENT.paths as Record<string, OpenApiDocument>).flatMap(
  ([path, item]) =>
    Object.entries(item)
      .filter(([method]) => method === 'get' || method === 'head' || method === 'post')
      .map(([method, operation]) => ({
        operationId: operation.operationId as OperationId,
        method: method as ContractOperation['method'],
        path,
        permission: requiredPermission(String(operation.operationId), operation['x-permission']),
        takesPassword: takesPassword(operation),
        queryParameters: ((operation.parameters ?? []) as { in: string; name: string }[])
          .filter((parameter) => parameter.in === 'query')
          .map((parameter) => parameter.name),
        exclusiveFields: exclusiveFields(operation),
        requestSchema: resolve(operation.requestBody?.content['application/json']?.schema),
        idempotencyKey: idempotencyKeyUse(WORKSPACE_DOCUMENT, operation),
        credentialWays: credentialWays(operation),
        takesCsrfToken: takesCsrfToken(operation),
      })),
);
