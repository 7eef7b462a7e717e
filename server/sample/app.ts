import cors from 'cors';
import express, { type Express, type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { contractPath, readContract } from '../../lib/contract/document.js';
import { notFoundHandler, sampleErrorHandler } from '../http/error-handler.js';
import { validationErrors } from '../http/validation-errors.js';
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

/** A web origin a page can have: `scheme://host[:port]`, nothing more. */
const WEB_ORIGIN = /^https?:\/\/[^/?#\s@]+$/i;

/**
 * Every origin, with credentials (docs/spec §5). Browsers refuse `*` with
 * credentials, so the request's own origin is echoed, with `Vary: Origin` so
 * that caches keep one answer per origin. Only a real web origin is echoed:
 * `null` is what sandboxed frames, `file:` pages and redirects send, and
 * echoing it with credentials would let any of them read as a trusted page.
 * The request headers a page may send are a fixed list, not whatever a
 * preflight asks for.
 */
const corsForEveryOrigin = cors({
  origin: (origin, allow) => allow(null, origin !== undefined && WEB_ORIGIN.test(origin)),
  credentials: true,
  methods: ['GET', 'HEAD'],
  allowedHeaders: ['Content-Type', 'Accept', 'Accept-Language', 'X-Requested-With'],
  maxAge: 600,
});

/** No content sniffing, and no framing of the page by another site (clickjacking). */
const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({ 'X-Content-Type-Options': 'nosniff', 'X-Frame-Options': 'DENY', 'Content-Security-Policy': "frame-ancestors 'none'" });
  next();
};

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
  app.use(securityHeaders);
  // Before the validator: a preflight is answered here and never reaches a route. Only on the
  // contract's paths: OPTIONS on any other is a 404 like every other method there.
  app.use((req, res, next) => (SAMPLE_PATHS.has(req.path) ? corsForEveryOrigin(req, res, next) : next()));
  app.use(
    OpenApiValidator.middleware({
      apiSpec: contractPath('sample'),
      validateRequests: { allowUnknownQueryParameters: false },
      validateResponses,
      // Only the contract's spelling of a path; any other goes to the 404 (as on the workspace service).
      ignorePaths: (path: string) => !SAMPLE_PATHS.has(path),
    }),
    // Its refusals as the contract's answers, as on the workspace service (http/validation-errors.ts).
    validationErrors,
  );
  app.get('/', (_req, res) => {
    res.type('html').send(HOME_PAGE);
  });
  app.get('/api/data', (req, res) => {
    sendJson(req, res, buildRecords());
  });
  app.use(notFoundHandler);
  app.use(sampleErrorHandler);
  return app;
}
