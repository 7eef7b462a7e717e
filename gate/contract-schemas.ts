/**
 * The bundled contracts as the gate reads them: every operation of the
 * workspace contract and of the SCIM contract, the statuses each declares, and
 * Ajv validators (JSON Schema 2020-12, the dialect of OpenAPI 3.1) for its
 * request body and for each response body.
 *
 * The gate validates with its own Ajv rather than trusting the server's
 * validator: a deployment may run with response validation off, and Dredd does
 * not check OpenAPI 3 bodies against their schemas at all.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { type OpenApiDocument, resolveReference } from '../lib/contract/document.js';
import { type OperationId, WORKSPACE_DOCUMENT } from '../lib/contract/operations.js';
import { SCIM_BASE_PATH, SCIM_DOCUMENT, type ScimOperationId } from '../lib/contract/scim-operations.js';

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
  operationId: string;
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<string, ResponseObject>;
}

/** Keywords OpenAPI adds to JSON Schema; annotations only. */
const OPENAPI_KEYWORDS = ['discriminator', 'xml', 'externalDocs', 'example'];
/** The contracts' own keywords in schemas: `x-shown-once` marks a secret an answer shows once (lib/contract/idempotency-key.ts). */
const CONTRACT_KEYWORDS = ['x-shown-once'];

const LOCAL_SCHEMA_REF = '#/components/schemas/';

/** One contract's schemas, compiled by an Ajv of its own (the two contracts name different schemas alike). */
class SchemaBook {
  readonly #document: OpenApiDocument;
  readonly #id: string;
  readonly #ajv: Ajv2020;
  readonly #compiled = new Map<Schema, ValidateFunction>();

  constructor(document: OpenApiDocument, id: string) {
    this.#document = document;
    this.#id = id;
    this.#ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, strictTypes: false });
    addFormats(this.#ajv);
    // `format: password` is a UI hint in OpenAPI, not a constraint.
    this.#ajv.addFormat('password', true);
    for (const keyword of [...OPENAPI_KEYWORDS, ...CONTRACT_KEYWORDS]) this.#ajv.addKeyword(keyword);
    // Refs in the bundle are document-local (#/components/schemas/…): register
    // the components as $defs of one schema and point every $ref there.
    this.#ajv.addSchema({ $id: id, $defs: this.#rebase(document.components.schemas) });
  }

  /** Rewrites `#/components/schemas/X` refs to `<id>#/$defs/X`, so a schema compiles on its own. */
  #rebase<T>(value: T): T {
    if (Array.isArray(value)) return value.map((item) => this.#rebase(item)) as T;
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        key === '$ref' && typeof inner === 'string' && inner.startsWith(LOCAL_SCHEMA_REF)
          ? `${this.#id}#/$defs/${inner.slice(LOCAL_SCHEMA_REF.length)}`
          : this.#rebase(inner),
      ]),
    ) as T;
  }

  validatorFor(schema: Schema): ValidateFunction {
    let validate = this.#compiled.get(schema);
    if (!validate) {
      validate = this.#ajv.compile(this.#rebase(schema));
      this.#compiled.set(schema, validate);
    }
    return validate;
  }

  resolve<T>(value: T | { $ref: string } | undefined): T | undefined {
    return resolveReference<T>(this.#document, value);
  }

  /**
   * The schema with every reference replaced by what it names, so that the
   * fuzz's generators (arbitraries.ts) read it without knowing the document.
   * The request schemas have no cycles.
   */
  inline(schema: Schema): Schema {
    const walk = (value: unknown, depth: number): unknown => {
      if (depth > 32) throw new Error('a request schema nests too deep to inline (a reference cycle?)');
      if (Array.isArray(value)) return value.map((item) => walk(item, depth + 1));
      if (value === null || typeof value !== 'object') return value;
      const resolved = this.resolve<Record<string, unknown>>(value as Record<string, unknown>)!;
      return Object.fromEntries(Object.entries(resolved).map(([key, inner]) => [key, walk(inner, depth + 1)]));
    };
    return walk(schema, 0) as Schema;
  }
}

export interface DeclaredResponse {
  status: number;
  /** The media type the contract names first, e.g. `application/json`. */
  mediaType: string;
  schema: Schema | undefined;
  /** Every media type the contract names for the status, with its schema (an error: JSON, or problem details by `Accept`). */
  alternatives: { mediaType: string; schema: Schema | undefined }[];
}

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface OperationContract<Id extends string = string> {
  /** Which contract declares it. */
  contract: 'workspace' | 'scim';
  operationId: Id;
  method: 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete';
  /** The method as sent. */
  httpMethod: HttpMethod;
  /** The path as the contract writes it: `/api/public/get_user`, `/Users/{id}`. */
  path: string;
  /** Where the contract's paths start on the service: '' for the workspace contract, `/scim/v2` for SCIM. */
  basePath: string;
  /** The operation whose handler answers: the GET at the same path for a HEAD operation, else itself. */
  servedBy: Id;
  /** The request body's schema, every reference inlined; undefined for operations without a body. */
  requestSchema: Schema | undefined;
  /** The request body's media type, as the contract names it first. */
  requestMediaType: string | undefined;
  responses: DeclaredResponse[];
  /** The contract's schemas, which validate this operation's bodies. */
  schemas: SchemaBook;
}

const METHODS = new Set(['get', 'head', 'post', 'put', 'patch', 'delete']);

function describeContract<Id extends string>(
  contract: OperationContract['contract'],
  document: OpenApiDocument,
  basePath: string,
): OperationContract<Id>[] {
  const schemas = new SchemaBook(document, `${contract}-contract`);
  const paths = document.paths as Record<string, Record<string, OperationObject>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.has(method))
      .map(([method, object]) => {
        const responses = Object.entries(object.responses).map(([status, declared]) => {
          const content = Object.entries(schemas.resolve<ResponseObject>(declared)!.content ?? {});
          const [mediaType, media] = content[0] ?? ['', {}];
          const alternatives = content.map(([type, declaredMedia]) => ({ mediaType: type, schema: declaredMedia.schema }));
          return { status: Number(status), mediaType, schema: media.schema, alternatives };
        });
        const [requestMediaType, requestMedia] = Object.entries(object.requestBody?.content ?? {})[0] ?? [undefined, undefined];
        const servedBy = (method === 'head' ? item.get!.operationId : object.operationId) as Id;
        return {
          contract,
          operationId: object.operationId as Id,
          method: method as OperationContract['method'],
          httpMethod: method.toUpperCase() as HttpMethod,
          path,
          basePath,
          servedBy,
          requestSchema: requestMedia?.schema ? schemas.inline(requestMedia.schema) : undefined,
          requestMediaType,
          responses,
          schemas,
        };
      }),
  );
}

/** Every operation of the workspace contract, in the contract's order. */
export const CONTRACT_OPERATIONS: readonly OperationContract<OperationId>[] = describeContract('workspace', WORKSPACE_DOCUMENT, '');

/** Every operation of the SCIM contract, in its order; its paths are under SCIM_BASE_PATH. */
export const SCIM_CONTRACT_OPERATIONS: readonly OperationContract<ScimOperationId>[] = describeContract(
  'scim',
  SCIM_DOCUMENT,
  SCIM_BASE_PATH,
);

/** The contract operation a path template such as `/Users/{id}` describes, for a concrete path such as `/Users/42`. */
export function operationAt<Id extends string>(
  operations: readonly OperationContract<Id>[],
  method: string,
  path: string,
): OperationContract<Id> | undefined {
  const lower = method.toLowerCase();
  return operations.find(
    (operation) => operation.method === lower && new RegExp(`^${operation.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(path),
  );
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
  const validate = operation.schemas.validatorFor(operation.requestSchema);
  return validate(body) ? [] : describeErrors(validate);
}

export interface ObservedResponse {
  status: number;
  contentType: string | null;
  /** The parsed JSON body, or the raw text. */
  body: unknown;
}

const isJsonMediaType = (mediaType: string) => /^application\/(.+\+)?json$/.test(mediaType);

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
  // A response declared without content (every HEAD answer, SCIM's 204) must come without a body.
  if (declared.mediaType === '') return response.body === '' ? [] : ['a body, where the contract declares none'];
  const mediaType = (response.contentType ?? '').split(';')[0]!.trim();
  const answered = declared.alternatives.find((alternative) => alternative.mediaType === mediaType);
  if (!answered)
    return [
      `Content-Type ${response.contentType ?? '(none)'} is not the declared ${declared.alternatives.map((alternative) => alternative.mediaType).join(' or ')}`,
    ];
  if (!answered.schema) return [];
  if (isJsonMediaType(answered.mediaType) && typeof response.body === 'string') return ['the body is not JSON'];
  const validate = operation.schemas.validatorFor(answered.schema);
  return validate(response.body) ? [] : describeErrors(validate);
}
