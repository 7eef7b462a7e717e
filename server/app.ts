/**
 * Builds the workspace service's express app; main.ts listens. Wired in the
 * order express-openapi-validator's examples use: body parser with a size
 * limit, the validator, the routes, one error handler.
 */
import express, { type Express, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import type { OpenAPIV3 } from 'express-openapi-validator/dist/framework/types.js';
import { AuthThrottle } from './auth/throttle.js';
import type { AuthThrottleConfig, Config } from './config.js';
import { OPERATIONS, WORKSPACE_DOCUMENT } from './contract.js';
import { createHandlers } from './handlers/index.js';
import type { Handlers, JsonOperationId, OperationHandler, PageOperationId } from './handlers/types.js';
import { authenticate } from './http/authenticate.js';
import { documentationHandlers } from './http/documentation.js';
import { errorHandler, notFoundHandler } from './http/error-handler.js';
import { refuseUndeclaredQuery } from './http/query-guard.js';
import { requestLogger, requestLogging } from './http/request-logging.js';
import type { Logger } from './logger.js';
import type { Store } from './store/store.js';

/** Requests are small JSON objects; 32 KiB is far above any valid one. */
export const BODY_LIMIT_BYTES = 32 * 1024;

export interface AppOptions {
  store: Store;
  logger: Logger;
  validateResponses: boolean;
  /** Validate requests against the contract: always, but for the benchmark measuring what that costs. */
  validateRequests?: boolean;
  authThrottle: AuthThrottleConfig;
  trustProxy?: Config['trustProxy'];
  /** The handlers to route to; default the service's own. The contract gate swaps in faulty ones to prove it notices. */
  handlers?: Handlers;
}

/** Answers hold user records: no caching anywhere, and no content sniffing. */
const apiHeaders: RequestHandler = (_req, res, next) => {
  res.set({ 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  next();
};

export function createApp({
  store,
  logger,
  validateResponses,
  validateRequests = true,
  authThrottle,
  trustProxy = false,
  handlers = createHandlers({ store }),
}: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy);

  app.use(requestLogging(logger));
  app.use(apiHeaders);
  // 1. Body parser with a limit.
  app.use(express.json({ limit: BODY_LIMIT_BYTES }));
  // 2. The contract: every request, and every response when asked.
  if (validateRequests || validateResponses) {
    app.use(
      OpenApiValidator.middleware({
        apiSpec: structuredClone(WORKSPACE_DOCUMENT) as unknown as OpenAPIV3.DocumentV3_1,
        // The contract is linted and its bundle checked before it ships (npm test); checking it
        // against the OpenAPI schema again took about 200 ms of every start (BENCHMARKS.md).
        validateApiSpec: false,
        validateRequests: validateRequests && { allowUnknownQueryParameters: false },
        validateResponses,
        validateSecurity: false,
      }),
    );
  }
  // 3. One route per operation of the contract, behind its permission.
  const throttle = new AuthThrottle(authThrottle);
  for (const operation of OPERATIONS) {
    const { operationId } = operation;
    const route: RequestHandler =
      operationId in documentationHandlers
        ? documentationHandlers[operationId as PageOperationId]
        : async (req, res) => {
            const handler = handlers[operationId as JsonOperationId] as OperationHandler<JsonOperationId>;
            const context = {
              key: res.locals.apiKey,
              get log() {
                return requestLogger(req, res);
              },
            };
            res.status(200).json(await handler(req.body, context));
          };
    app[operation.method](operation.path, refuseUndeclaredQuery(operation), authenticate(operation.permission, store, throttle), route);
  }
  // 4. Everything else, and every error, in the contract's error shape.
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
