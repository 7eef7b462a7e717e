/**
 * SCIM 2.0 on the workspace service's app, under /scim/v2: the SCIM
 * contract's validation, one route per operation behind its permission (the
 * same key check and throttle as the workspace API), and SCIM's error
 * answers for everything under that path.
 */
import { type ErrorRequestHandler, type Express, type RequestHandler, Router } from 'express';
import { authenticate, type CredentialCheck } from '../http/authenticate.js';
import { idempotencyClaimOf, type IdempotentRequests } from '../http/idempotency.js';
import { entityTag, writeConditions } from '../http/entity-tags.js';
import { undeclaredQuery } from '../http/query-guard.js';
import { operationRoutes } from '../http/operation-routes.js';
import { sendJson } from '../http/send-json.js';
import type { ApiKeyRecord } from '../directory/index.js';
import type { Store } from '../store/repositories.js';
import { SCIM_BASE_PATH, SCIM_OPERATIONS } from './contract.js';
import { createDirectory, type DirectoryOptions } from '../directory/index.js';
import { canonicalAttributeNames } from './attribute-names.js';
import { answeringRefusals } from './directory-errors.js';
import { discoveryHandlers } from './discovery.js';
import { invalidValue, isScimRequest, SCIM_MEDIA_TYPE, scimErrorHandler, scimNotFound } from './errors.js';
import { scimGroupHandlers } from './groups.js';
import type { ScimHandler, ScimHandlers } from './types.js';
import { scimUserHandlers } from './users.js';

/** The SCIM operations' handlers, over one store's directory; the directory's refusals answered as SCIM's. */
export function createScimHandlers(store: Store, options: DirectoryOptions = {}): ScimHandlers {
  const directory = createDirectory(store, options);
  const handlers: ScimHandlers = { ...discoveryHandlers, ...scimUserHandlers(directory), ...scimGroupHandlers(directory) };
  return Object.fromEntries(
    Object.entries(handlers).map(([operationId, handler]) => [operationId, answeringRefusals(handler)]),
  ) as ScimHandlers;
}

export interface ScimParts {
  /** One handler per SCIM operation: createScimHandlers(store). */
  handlers: ScimHandlers;
  /** The workspace API's credential check: one throttle of failed checks per client, whichever protocol it speaks. */
  credentials: CredentialCheck;
  /** The SCIM contract's checks: scimContractValidation() (contract.ts). */
  validation: (RequestHandler | ErrorRequestHandler)[];
  /** The requests sent with an Idempotency-Key, shared with the workspace API. */
  idempotent: IdempotentRequests;
}

/** The query's parameters as text (the validator has made numbers of the integer ones); a repeated one is left out. */
const textParameters = (query: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(query)
      .filter(([, value]) => typeof value === 'string' || typeof value === 'number')
      .map(([name, value]) => [name, String(value)]),
  );

/** The query-guard's check (http/query-guard.ts), answered in SCIM's words. */
const refuseUndeclaredScimQuery =
  (declared: readonly string[]): RequestHandler =>
  (req, _res, next) => {
    const message = undeclaredQuery(req.originalUrl, declared);
    next(message === undefined ? undefined : invalidValue(message));
  };

function route(handler: ScimHandler): RequestHandler {
  return async (req, res) => {
    const key = res.locals.apiKey as ApiKeyRecord;
    const answer = await handler({
      id: typeof req.params.id === 'string' ? req.params.id : '',
      query: textParameters(req.query),
      body: req.body,
      key,
      author: {
        actor: key.api_key,
        requestId: (res.getHeader('X-Request-Id') as string | undefined) ?? null,
        protocol: 'scim',
        permissions: key.permissions,
        ...idempotencyClaimOf(res),
      },
      base: `${req.protocol}://${req.get('host') ?? 'localhost'}${SCIM_BASE_PATH}`,
      expectedVersions: writeConditions(req.get('If-Match'), req.get('If-None-Match')),
    });
    if (answer.version !== undefined) res.set('ETag', entityTag(answer.version));
    if (answer.location !== undefined) res.location(answer.location);
    res.status(answer.status);
    if (answer.status === 204) return void res.end();
    res.type(SCIM_MEDIA_TYPE);
    sendJson(req, res, answer.body);
  };
}

/** Mounts SCIM on `app`; before the workspace API's validation and routes, whose error answers are not SCIM's. */
export function mountScim(app: Express, { handlers, credentials, idempotent, validation }: ScimParts): void {
  // Each operation found by its method and path in one lookup (http/operation-routes.ts).
  const routes = operationRoutes(
    SCIM_OPERATIONS.map((operation) => ({
      method: operation.method,
      path: operation.route,
      handlers: [
        refuseUndeclaredScimQuery(operation.queryParameters),
        authenticate({ permission: operation.permission }, credentials, 'scim'),
        idempotent.for(operation.idempotencyKey),
        route(handlers[operation.operationId]),
      ],
    })),
  );
  // The contract's checks and the routes behind one test of the path: every request of the
  // workspace API went through the SCIM validator's three middlewares, each testing its path
  // against SCIM's, and through SCIM's lookup (BENCHMARKS.md). A router not mounted at a path
  // leaves the path whole for the validator and the routes.
  // Attribute names are case-insensitive (RFC 7643, 2.1): in the schemas' case before the contract
  // reads them. Behind the same test of the path: mounted at SCIM's base on the app, every request
  // paid for a match of its path against it, and a SCIM request for the router's mounting too.
  const scim = Router({ caseSensitive: true, strict: true }).use(canonicalAttributeNames, validation, routes);
  const scimOnly: RequestHandler = (req, res, next) => (isScimRequest(req) ? scim(req, res, next) : next());
  // The operations stay visible in the app's routing table (testing/app-routes.ts).
  app.use(Object.assign(scimOnly, { served: routes.served }));
  app.use(SCIM_BASE_PATH, scimNotFound);
  app.use(SCIM_BASE_PATH, scimErrorHandler);
}
