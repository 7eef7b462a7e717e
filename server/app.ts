/**
 * Assembles the workspace service's express app from its parts (the store,
 * the handlers, the contract's validation, the logger); main.ts composes the
 * service's own and listens, and tests, the gate's own service and the bench
 * compose theirs from the same parts. Wired in the order
 * express-openapi-validator's examples use: body parser with a size limit,
 * the validation, the routes, one error handler.
 */
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { declaredFields } from '../lib/contract/declared-fields.js';
import { BODY_LIMIT_BYTES, type ContractOperation, JSON_DEPTH_LIMIT, OPERATIONS, WORKSPACE_DOCUMENT } from '../lib/contract/operations.js';
import { ConsoleSessions, DEFAULT_SESSION_TIMEOUTS, type SessionTimeouts } from './keys/console-sessions.js';
import { LastUse } from './keys/last-use.js';
import { consoleSessionControl } from './http/session-control.js';
import { consolePages } from './http/console.js';
import { AuthThrottle } from './keys/throttle.js';
import type { AuthThrottleConfig, Config } from './config.js';
import type { HandlerContext, Handlers, JsonOperationId, OperationHandler, PageOperationId } from './handlers/types.js';
import { authenticate, type CredentialCheck } from './http/authenticate.js';
import { compressedAnswers } from './http/compression.js';
import { crossOriginAccess } from './http/cors.js';
import { documentationHandlers } from './http/documentation.js';
import { entityTag, expectedVersions } from './http/entity-tags.js';
import { errorHandler, notFoundHandler } from './http/error-handler.js';
import { DEFAULT_IDEMPOTENCY_KEY_HOURS, idempotencyClaimOf, IdempotentRequests } from './http/idempotency.js';
import type { RefusalAnswer } from './http/lifecycle.js';
import { operationRoutes } from './http/operation-routes.js';
import { answerLongListsInParts } from './http/json-in-parts.js';
import { refuseUndeclaredQuery } from './http/query-guard.js';
import { jsonBody, refuseNulInUrl, refuseOverlongStream, refuseUnreadableBody } from './http/request-body.js';
import { requestLogging } from './http/request-logging.js';
import { sendJson } from './http/send-json.js';
import { StreamedJson, sendStreamed } from './http/streamed-json.js';
import type { Logger } from './logger.js';
import { ServiceMetrics } from './metrics.js';
import type { Store } from './store/repositories.js';
import { sightOf } from './directory/index.js';
import { isScimPath, isScimRequest, SCIM_MEDIA_TYPE, scimErrorBody, scimErrorHandler, scimFailureOf } from './scim/errors.js';
import { mountScim } from './scim/routes.js';
import type { ScimHandlers } from './scim/types.js';

export interface AppParts {
  /** The keys' store, for authentication (the handlers hold their own). */
  store: Store;
  /** One handler per JSON operation: createHandlers() for the service. */
  handlers: Handlers;
  /** The contract's checks before the routes: contractValidation() (http/contract-validation.ts). */
  validation: (RequestHandler | ErrorRequestHandler)[];
  /** One handler per SCIM operation: createScimHandlers() (scim/routes.ts). */
  scimHandlers: ScimHandlers;
  /** The SCIM contract's checks before its routes: scimContractValidation() (scim/contract.ts). */
  scimValidation: (RequestHandler | ErrorRequestHandler)[];
  logger: Logger;
  authThrottle: AuthThrottleConfig;
  trustProxy?: Config['trustProxy'];
  /** The web origins whose pages may call the service (CORS_ORIGINS); none by default. */
  corsOrigins?: readonly string[];
  /** Counts and times requests by operation, when metrics are on (METRICS_PORT). */
  metrics?: ServiceMetrics;
  /** How long an Idempotency-Key and its answer are kept (IDEMPOTENCY_KEY_HOURS); a day by default. */
  idempotencyKeyMs?: number;
  /** When the console's sessions end (CONSOLE_SESSION_IDLE_MINUTES, CONSOLE_SESSION_HOURS). */
  sessionTimeouts?: SessionTimeouts;
}

/** Answers hold user records: no caching anywhere, and no content sniffing. */
const apiHeaders: RequestHandler = (_req, res, next) => {
  res.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  next();
};

/**
 * A refusal before routing (headers too large, a request too slow, too many connections),
 * in the shape of the protocol its path speaks. Too many connections is refused before any
 * request is read: that answer carries both shapes' fields, so either client reads it.
 */
export const refusalInItsProtocol: RefusalAnswer = (path, refusal) => {
  const workspace = { contentType: 'application/json; charset=utf-8', body: refusal.toBody() };
  const scim = scimErrorBody(scimFailureOf(refusal));
  // No path, no protocol: both shapes in one body (SCIM's `status` is text, as RFC 7644 writes it).
  if (path === undefined) return { ...workspace, body: { ...workspace.body, ...scim } };
  return isScimPath(path) ? { contentType: `${SCIM_MEDIA_TYPE}; charset=utf-8`, body: scim } : workspace;
};

/** A failure found before routing (an over-long stream), answered in the shape of the protocol its path speaks. */
const answerInItsProtocol: ErrorRequestHandler = (error, req, res, next) =>
  (isScimRequest(req) ? scimErrorHandler : errorHandler)(error, req, res, next);

export function createApp({
  store,
  handlers,
  validation,
  scimHandlers,
  scimValidation,
  logger,
  authThrottle,
  trustProxy = false,
  corsOrigins = [],
  metrics,
  idempotencyKeyMs = DEFAULT_IDEMPOTENCY_KEY_HOURS * 3_600_000,
  sessionTimeouts = DEFAULT_SESSION_TIMEOUTS,
}: AppParts): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy);
  // One spelling per path: `/API/PUBLIC/GET_GROUPS` and `/api/public/get_groups/` are not routes,
  // so a reverse proxy's rule for a path cannot be stepped around by another spelling of it.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  // An ETag here always names a record's version (http/entity-tags.ts), never a digest of the body.
  app.set('etag', false);
  // A page of change events or of SCIM's users: serialized in parts, below V8's slow large strings (http/json-in-parts.ts).
  answerLongListsInParts(app);

  app.use(requestLogging(logger));
  if (metrics) app.use(metrics.middleware);
  app.use(apiHeaders);
  app.use(compressedAnswers());
  // Before everything that could refuse a preflight: a browser sends it without credentials or a body.
  if (corsOrigins.length > 0) app.use(crossOriginAccess(corsOrigins));
  // 1. Body parser with a limit, refusing what it cannot read faithfully, and U+0000 in the URL too (request-body.ts).
  app.use(
    refuseNulInUrl,
    refuseUnreadableBody(BODY_LIMIT_BYTES),
    refuseOverlongStream(BODY_LIMIT_BYTES, answerInItsProtocol),
    ...jsonBody(BODY_LIMIT_BYTES, JSON_DEPTH_LIMIT),
  );
  // One throttle of failed credential checks, whichever protocol a client speaks.
  const credentials: CredentialCheck = {
    store,
    throttle: new AuthThrottle(authThrottle),
    lastUse: new LastUse(store.apiKeys, (error) => logger.warn({ err: error }, "could not note an API key's last use")),
    sessions: new ConsoleSessions(store, sessionTimeouts),
  };
  // One record of the requests sent with an Idempotency-Key, whichever protocol sent them.
  const idempotent = new IdempotentRequests({ store, keptForMs: idempotencyKeyMs });
  // 2. SCIM under /scim/v2, with its own contract, routes and error answers (scim/routes.ts).
  mountScim(app, { handlers: scimHandlers, credentials, idempotent, validation: scimValidation });
  // The web console: pages of a client of the API on the same origin, not operations of it (http/console.ts).
  app.use('/console', consolePages());
  // 3. The contract: every request, and every response when asked.
  app.use(validation);
  // 4. One route per operation of the contract, behind its permission.
  const routeOf = ({ operationId, requestSchema }: ContractOperation): RequestHandler =>
    operationId in documentationHandlers
      ? documentationHandlers[operationId as PageOperationId]
      : async (req, res) => {
          const handler = handlers[operationId as JsonOperationId] as OperationHandler<JsonOperationId>;
          const key = res.locals.apiKey as HandlerContext['key'];
          // Values and functions only, no getter or setter (eslint.config.js): V8 keeps an object
          // literal's accessors in its old generation, and the request they close over would then
          // outlive the young generation's collections (BENCHMARKS.md, "What outlives a scavenge").
          const context: HandlerContext = {
            key,
            author: {
              actor: key?.api_key ?? 'anonymous',
              requestId: (res.getHeader('X-Request-Id') as string | undefined) ?? null,
              protocol: 'workspace',
              ...(key ? { permissions: key.permissions } : {}),
              ...idempotencyClaimOf(res),
            },
            sight: sightOf(key?.permissions ?? []),
            expectedVersions: expectedVersions(req.get('If-Match')),
            answersVersion: (version) => void res.set('ETag', entityTag(version)),
            consoleSession: consoleSessionControl(req, res, credentials.sessions),
          };
          // Kasm's tolerance: the handler sees the fields the contract declares, none of them null.
          const body = await handler(declaredFields(WORKSPACE_DOCUMENT, requestSchema, req.body) as never, context);
          if (body instanceof StreamedJson) return sendStreamed(req, res, body);
          sendJson(req, res.status(200), body);
        };
  // A HEAD operation is served by the GET at its path, without the body. Each is found by its
  // method and path in one lookup (http/operation-routes.ts).
  const getOperations = new Map(
    OPERATIONS.filter((operation) => operation.method === 'get').map((operation) => [operation.path, operation]),
  );
  app.use(
    operationRoutes(
      OPERATIONS.map((operation) => {
        const served = operation.method === 'head' ? getOperations.get(operation.path) : operation;
        if (!served) throw new Error(`${operation.operationId}: a HEAD operation needs a GET at ${operation.path}`);
        return {
          method: operation.method,
          path: operation.path,
          handlers: [
            refuseUndeclaredQuery(operation),
            authenticate(served, credentials, 'workspace'),
            idempotent.for(served.idempotencyKey),
            routeOf(served),
          ],
        };
      }),
    ),
  );
  // 5. Everything else, and every error, in the contract's error shape.
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
