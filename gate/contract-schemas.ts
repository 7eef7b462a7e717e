/**
 * The bundled workspace contract as the gate reads it: every operation, the
 * statuses it declares, and Ajv validators (JSON Schema 2020-12, the dialect of
 * OpenAPI 3.1) for its request body and for each response body.
 *
 * The gate validates with its own Ajv rather than trusting the server's
 * validator: a deployment may run with response validation off, and Dredd does
 * not check OpenAPI 3 bodies against their schemas at all.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { resolveReference } from '../lib/contract/document.js';
import { type ContractOperation, OPERATIONS, type OperationId, WORKSPACE_DOCUMENT } from '../lib/contract/operations.js';

// ajv-formats is CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export type Schema = Record<string, any>;

interface MediaType {
  schema?: Schema;
}
interface ResponseObject {
  $ref?: string;
  content?: Record<string, MediaType>;
}
interface OperationObject {
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, ResponseObject>;
}

const document = WORKSPACE_DOCUMENT as unknown as {
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, Schema>; responses: Record<string, ResponseObject> };
};

const DOCUMENT_ID = 'workspace-contract';

/** Keywords OpenAPI adds to JSON Schema; annotations only. */
const OPENAPI_KEYWORDS = ['discriminator', 'xml', 'externalDocs', 'example'];

function createAjv(): Ajv2020 {
  const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, strictTypes: false });
  addFormats(ajv);
  // `format: password` is a UI hint in OpenAPI, not a constraint.
  ajv.addFormat('password', true);
  for (const keyword of OPENAPI_KEYWORDS) ajv.addKeyword(keyword);
  // Refs in the bundle are document-local (#/components/schemas/…): register
  // the components as $defs of one schema and point every $ref there.
  ajv.addSchema({ $id: DOCUMENT_ID, $defs: rebase(document.components.schemas) });
  return ajv;
}

const LOCAL_SCHEMA_REF = '#/components/schemas/';

/** Rewrites `#/components/schemas/X` refs to `workspace-contract#/$defs/X`, so a schema compiles on its own. */
function rebase<T>(value: T): T {
  if (Array.isArray(value)) return value.map(rebase) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === '$ref' && typeof inner === 'string' && inner.startsWith(LOCAL_SCHEMA_REF)
        ? `${DOCUMENT_ID}#/$defs/${inner.slice(LOCAL_SCHEMA_REF.length)}`
        : rebase(inner),
    ]),
  ) as T;
}

const ajv = createAjv();
const compiled = new Map<Schema, ValidateFunction>();

function validatorFor(schema: Schema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(rebase(schema));
    compiled.set(schema, validate);
  }
  return validate;
}

/** Follows a local `#/components/schemas/…` reference. */
export const resolveSchema = (schema: Schema): Schema => resolveReference<Schema>(document, schema)!;

const resolveResponse = (response: ResponseObject): ResponseObject => resolveReference<ResponseObject>(document, response)!;

export interface DeclaredResponse {
  status: number;
  /** The media type the contract names, e.g. `application/json`. */
  mediaType: string;
  schema: Schema | undefined;
}

export interface OperationContract extends ContractOperation {
  /** The method as sent: GET, HEAD or POST. */
  httpMethod: 'GET' | 'HEAD' | 'POST';
  /** The operation whose handler answers: the GET at the same path for a HEAD operation, else itself. */
  servedBy: OperationId;
  /** The JSON request body's schema; undefined for the GET operations. */
  requestSchema: Schema | undefined;
  responses: DeclaredResponse[];
}

function describe(operation: ContractOperation): OperationContract {
  const object = document.paths[operation.path]![operation.method]!;
  const responses = Object.entries(object.responses).map(([status, declared]) => {
    const [mediaType, media] = Object.entries(resolveResponse(declared).content ?? {})[0] ?? ['', {}];
    return { status: Number(status), mediaType, schema: media.schema };
  });
  const servedBy =
    operation.method === 'head'
      ? OPERATIONS.find((other) => other.method === 'get' && other.path === operation.path)!.operationId
      : operation.operationId;
  const httpMethod = operation.method.toUpperCase() as OperationContract['httpMethod'];
  return { ...operation, httpMethod, servedBy, requestSchema: object.requestBody?.content['application/json']?.schema, responses };
}

/** Every operation of the contract, in the contract's order. */
export const CONTRACT_OPERATIONS: readonly OperationContract[] = OPERATIONS.map(describe);

export function operationContract(operationId: OperationId): OperationContract {
  const found = CONTRACT_OPERATIONS.find((operation) => operation.operationId === operationId);
  if (!found) throw new Error(`the contract has no operation ${operationId}`);
  return found;
}

/** Ajv's errors as one line each: `/user/created must be string`. */
function describeErrors(validate: ValidateFunction): string[] {
  return (validate.errors ?? []).map(
    (error) =>
      `${error.instancePath || '(body)'} ${error.message}${error.keyword === 'additionalProperties' ? `: ${error.params.additionalProperty}` : ''}`,
  );
}

/** What is wrong with a request body, or [] when the contract accepts it. */
export function requestViolations(operation: OperationContract, body: unknown): string[] {
  if (!operation.requestSchema) return [];
  const validate = validatorFor(operation.requestSchema);
  return validate(body) ? [] : describeErrors(validate);
}

export interface ObservedResponse {
  status: number;
  contentType: string | null;
  /** The parsed JSON body, or the raw text. */
  body: unknown;
}

/**
 * What is wrong with a response, or [] when the contract allows it: the status
 * must be declared, the Content-Type must be the declared media type, and a JSON
 * body must match the declared schema.
 */
export function responseViolations(operation: OperationContract, response: ObservedResponse): string[] {
  const declared = operation.responses.find((candidate) => candidate.status === response.status);
  if (!declared) {
    return [`status ${response.status} is not declared (declared: ${operation.responses.map((candidate) => candidate.status).join(', ')})`];
  }
  // A response declared without content (every HEAD answer) must come without a body.
  if (declared.mediaType === '') return response.body === '' ? [] : ['a body, where the contract declares none'];
  const mediaType = (response.contentType ?? '').split(';')[0]!.trim();
  if (mediaType !== declared.mediaType)
    return [`Content-Type ${response.contentType ?? '(none)'} is not the declared ${declared.mediaType}`];
  if (!declared.schema) return [];
  if (declared.mediaType === 'application/json' && typeof response.body === 'string') return ['the body is not JSON'];
  const validate = validatorFor(declared.schema);
  return validate(response.body) ? [] : describeErrors(validate);
}
