/**
 * What a page on another origin needs the service to allow, read from the
 * workspace contract rather than listed by hand (server/http/cors.ts applies
 * it): the methods its operations use, the request headers they take (header
 * parameters such as `If-Match`, the header credentials, `Authorization` for
 * HTTP Basic, `Content-Type` for a JSON body), and the response headers they
 * declare (`ETag`, `Retry-After`, `X-Request-Id`), which a browser hides from
 * the page unless they are exposed.
 */
import { resolveReference, type OpenApiDocument } from './document.js';
import { OPERATIONS, WORKSPACE_DOCUMENT } from './operations.js';

export interface CrossOriginSurface {
  /** The paths a page may call: the contract's. */
  paths: ReadonlySet<string>;
  methods: string[];
  requestHeaders: string[];
  exposedHeaders: string[];
}

const resolve = (value: unknown) => resolveReference(WORKSPACE_DOCUMENT, value as OpenApiDocument | undefined);

function requestHeadersOf(document: OpenApiDocument): string[] {
  const headers = new Set<string>(['Content-Type']);
  for (const scheme of Object.values(document.components.securitySchemes as Record<string, OpenApiDocument>).map(resolve)) {
    if (scheme?.type === 'apiKey' && scheme.in === 'header') headers.add(scheme.name as string);
    if (scheme?.type === 'http') headers.add('Authorization');
  }
  for (const item of Object.values(document.paths as Record<string, OpenApiDocument>)) {
    for (const operation of Object.values(item)) {
      for (const parameter of ((operation as OpenApiDocument).parameters ?? []).map(resolve)) {
        if (parameter?.in === 'header') headers.add(parameter.name as string);
      }
    }
  }
  return [...headers];
}

function exposedHeadersOf(document: OpenApiDocument): string[] {
  const headers = new Set<string>();
  for (const item of Object.values(document.paths as Record<string, OpenApiDocument>)) {
    for (const operation of Object.values(item)) {
      for (const response of Object.values((operation as OpenApiDocument).responses ?? {}).map(resolve)) {
        for (const name of Object.keys(response?.headers ?? {})) headers.add(name);
      }
    }
  }
  return [...headers].sort();
}

export const CROSS_ORIGIN: CrossOriginSurface = {
  paths: new Set(OPERATIONS.map((operation) => operation.path)),
  methods: [...new Set(OPERATIONS.map((operation) => operation.method.toUpperCase()))],
  requestHeaders: requestHeadersOf(WORKSPACE_DOCUMENT),
  exposedHeaders: exposedHeadersOf(WORKSPACE_DOCUMENT),
};
