/**
 * The bundled contracts (`npm run generate` writes them to generated/), read
 * once, and the one resolver of their local `$ref`s. The server, the contract
 * gate, the tests and the scripts all read the contracts through here.
 */
import { readFileSync } from 'node:fs';
import { projectFile } from '../project-root.js';

export type ContractName = 'workspace' | 'sample' | 'scim';

/** An OpenAPI document as JSON: loosely typed, since each reader looks at different parts. */
export type OpenApiDocument = Record<string, any>;

/** The bundle's path: JSON for programs (parsing YAML took a tenth of every start), YAML for people. */
export function contractPath(name: ContractName, format: 'json' | 'yaml' = 'json'): string {
  return projectFile('generated', name, `openapi.${format}`);
}

const documents = new Map<ContractName, OpenApiDocument>();

/** The bundled contract, parsed once per process. Treat it as read-only: every reader shares it. */
export function readContract(name: ContractName): OpenApiDocument {
  let document = documents.get(name);
  if (!document) {
    document = JSON.parse(readFileSync(contractPath(name), 'utf8')) as OpenApiDocument;
    documents.set(name, document);
  }
  return document;
}

/**
 * Where each reference object leads, once found. A reference object is part of the one
 * document it is in, and the documents are read-only and shared (readContract); the server
 * follows the same references for every request (declared-fields.ts), where splitting and
 * walking each path again cost several microseconds a request.
 */
const followed = new WeakMap<object, unknown>();

/**
 * Follows a local reference (`#/components/<kind>/<name>`, as the bundler
 * writes every one) until it reaches an object that is not a reference.
 * Anything else comes back as it is.
 */
export function resolveReference<T = OpenApiDocument>(document: OpenApiDocument, value: T | { $ref: string } | undefined): T | undefined {
  if (typeof (value as { $ref?: unknown } | undefined)?.$ref !== 'string') return value as T | undefined;
  const reference = value as { $ref: string };
  if (followed.has(reference)) return followed.get(reference) as T;
  let current: unknown = value;
  for (let hops = 0; hops < 64; hops++) {
    const ref = (current as { $ref?: unknown } | undefined)?.$ref;
    if (typeof ref !== 'string') {
      followed.set(reference, current);
      return current as T | undefined;
    }
    if (!ref.startsWith('#/')) throw new Error(`the contract has a reference that is not local: ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<OpenApiDocument | undefined>((node, segment) => node?.[segment], document);
    if (current === undefined) throw new Error(`the contract's reference ${ref} leads nowhere`);
  }
  throw new Error('the contract has a reference cycle');
}
