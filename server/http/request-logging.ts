/**
 * One log line per request (pino-http) under a request id, which the client
 * also gets as `X-Request-Id`, naming the API key that made it. A well-formed incoming `X-Request-Id` is kept so
 * that ids match across a proxy. Bodies and headers are not logged.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../logger.js';

const INCOMING_ID = /^[\w.:-]{1,128}$/;

function requestId(req: IncomingMessage, res: ServerResponse): string {
  const incoming = req.headers['x-request-id'];
  const id = typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : randomUUID();
  res.setHeader('X-Request-Id', id);
  return id;
}

export function requestLogging(logger: Logger) {
  return pinoHttp({
    logger,
    genReqId: requestId,
    customLogLevel: (_req, res, error) => (error || res.statusCode >= 500 ? 'error' : 'info'),
    // Evaluated again when the response finishes, by which time the caller's key is known.
    customProps: (_req, res) => {
      const apiKey = (res as { locals?: { apiKey?: { api_key: string } } }).locals?.apiKey?.api_key;
      return apiKey ? { api_key: apiKey } : {};
    },
    serializers: {
      req: (req: { id: string; method: string; url: string; remoteAddress?: string }) => ({
        id: req.id,
        method: req.method,
        url: req.url,
        remoteAddress: req.remoteAddress,
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
  });
}
