import cors from 'cors';
import express, { type Express } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { contractPath, readContract } from '../../lib/contract/document.js';
import { errorHandler, notFoundHandler } from '../http/error-handler.js';
import { requestLogging } from '../http/request-logging.js';
import { sendJson } from '../http/send-json.js';
import type { Logger } from '../logger.js';
import { buildRecords } from './records.js';

const SAMPLE_PATHS = new Set(Object.keys(readContract('sample').paths as object));

const HOME_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Sample Data Server</title>
</head>
<body>
  <h2>Hello from the sample data server!</h2>
  <p>The information records are at <a href="/api/data">/api/data</a>.</p>
</body>
</html>
`;

/**
 * Every origin, with credentials (docs/spec §5). Browsers refuse `*` with
 * credentials, so the request's own origin is echoed (`origin: true`), with
 * `Vary: Origin` so that caches keep one answer per origin.
 */
const corsForEveryOrigin = cors({
  origin: true,
  credentials: true,
  methods: ['GET', 'HEAD'],
  // No allowedHeaders: the headers a preflight asks for are allowed back, whatever they are.
  maxAge: 600,
});

export interface SampleAppOptions {
  logger: Logger;
  validateResponses: boolean;
}

export function createSampleApp({ logger, validateResponses }: SampleAppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  // One spelling per path, as on the workspace service (app.ts).
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  app.use(requestLogging(logger));
  // Before the validator: a preflight is answered here and never reaches a route.
  app.use(corsForEveryOrigin);
  app.use(
    OpenApiValidator.middleware({
      apiSpec: contractPath('sample'),
      validateRequests: { allowUnknownQueryParameters: false },
      validateResponses,
      // Only the contract's spelling of a path; any other goes to the 404 (as on the workspace service).
      ignorePaths: (path: string) => !SAMPLE_PATHS.has(path),
    }),
  );
  app.get('/', (_req, res) => {
    res.type('html').send(HOME_PAGE);
  });
  app.get('/api/data', (req, res) => {
    sendJson(req, res, buildRecords());
  });
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
