/**
 * The bundled contract, read at start: the server routes, validates and
 * authorises from it, so that openapi/ stays the single source of truth.
 */
import { readFileSync } from 'node:fs';
import type { components, operations } from '../generated/workspace/types.js';
import { projectFile } from './project-files.js';

export type OperationId = keyof operations;
export type Permission = components['schemas']['Permission'];
/** What an operation's `x-permission` may say: no credentials, any valid key, or one permission. */
export type RequiredPermission = 'none' | 'authenticated' | Permission;

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
}

/** The bundle as JSON (generated beside openapi.yaml): parsing YAML took a tenth of every start. */
export const WORKSPACE_CONTRACT_PATH = projectFile('generated', 'workspace', 'openapi.json');

interface SchemaObject {
  $ref?: string;
  properties?: Record<string, SchemaObject>;
  not?: { required?: string[] };
}

interface OperationObject {
  operationId?: string;
  parameters?: { name: string; in: string }[];
  'x-permission'?: string;
  requestBody?: { content: Record<string, { schema?: SchemaObject }> };
}

interface OpenApiDocument {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, SchemaObject> & { Permission: { enum: Permission[] } } };
}

const document = JSON.parse(readFileSync(WORKSPACE_CONTRACT_PATH, 'utf8')) as OpenApiDocument;

/** The bundled contract itself, as served at /openapi.json. */
export const WORKSPACE_DOCUMENT: Readonly<Record<string, unknown>> = document as unknown as Record<string, unknown>;

/** What an API key id may look like (the ApiKey schema's pattern), for ids that arrive where the validator does not look. */
export const API_KEY_PATTERN = new RegExp((document.components.schemas as unknown as Record<string, { pattern: string }>).ApiKey!.pattern);

/** Every permission a key can hold, in the contract's order. */
export const PERMISSIONS: readonly Permission[] = document.components.schemas.Permission.enum;

function requiredPermission(operationId: string, value: string | undefined): RequiredPermission {
  if (value === 'none' || value === 'authenticated' || PERMISSIONS.includes(value as Permission)) {
    return value as RequiredPermission;
  }
  throw new Error(`operation ${operationId} has no valid x-permission (found ${JSON.stringify(value)})`);
}

/** Follows a local `#/components/schemas/…` reference. */
function resolve(schema: SchemaObject | undefined): SchemaObject | undefined {
  if (!schema?.$ref) return schema;
  return resolve(document.components.schemas[schema.$ref.replace('#/components/schemas/', '')]);
}

function takesPassword(operation: OperationObject): boolean {
  const body = resolve(operation.requestBody?.content['application/json']?.schema);
  return resolve(resolve(body?.properties?.target_user)?.properties?.password) !== undefined;
}

function exclusiveFields(operation: OperationObject): string[] {
  return resolve(operation.requestBody?.content['application/json']?.schema)?.not?.required ?? [];
}

/** Every operation the contract declares. */
export const OPERATIONS: readonly ContractOperation[] = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => method === 'get' || method === 'head' || method === 'post')
    .map(([method, operation]) => ({
      operationId: operation.operationId as OperationId,
      method: method as ContractOperation['method'],
      path,
      permission: requiredPermission(String(operation.operationId), operation['x-permission']),
      takesPassword: takesPassword(operation),
      queryParameters: (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
      exclusiveFields: exclusiveFields(operation),
    })),
);
