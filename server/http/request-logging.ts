/**
 * One log line per request under a request id, which the client also gets as
 * `X-Request-Id`, naming the API key that made it. A well-formed incoming
 * `X-Request-Id` is kept so that ids match across a proxy. Bodies, headers and
 * query strings are not logged.
 *
 * Written on pino itself rather than pino-http, which builds two child loggers
 * per request and serialises the request into each, whether or not the level
 * writes a line: a tenth of update_user's CPU (BENCHMARKS.md). Here a request
 * costs an id and a listener; a child logger bound to the request
 * (`requestLogger`) is built only when something logs through it.
 */
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '../logger.js';

/** What a request carries for its log lines: its id and the service's logger, and a child of it once built. */
interface RequestLogState {
  id: string;
  logger: Logger;
  child?: Logger;
}

const STATE = Symbol('request log state');
type LoggedRequest = Request & { [STATE]?: RequestLogState };

const INCOMING_ID = /^[\w.:-]{1,128}$/;

function requestId(req: Request): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && INCOMING_ID.test(incoming) ? incoming : randomUUID();
}

const MAX_LOGGED_PATH = 200;

/**
 * The request's path as logged: never its query string, whose values may be
 * a secret sent in the wrong place (`?api_key_secret=…`); only how long it was.
 */
function loggedUrl(req: Request): { url: string; queryLength?: number } {
  const url = req.originalUrl;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const shown = path.length > MAX_LOGGED_PATH ? `${path.slice(0, MAX_LOGGED_PATH)}…` : path;
  return query === -1 ? { url: shown } : { url: shown, queryLength: url.length - query - 1 };
}

/** The request as every line about it describes it. */
function described(req: Request, id: string) {
  return { id, method: req.method, ...loggedUrl(req), remoteAddress: req.socket.remoteAddress };
}

/** The key that made the request, once authentication has named it. */
function apiKeyOf(res: Response): { api_key?: string } {
  const apiKey = (res.locals.apiKey as { api_key: string } | undefined)?.api_key;
  return apiKey ? { api_key: apiKey } : {};
}

export function requestLogging(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = Date.now();
    const id = requestId(req);
    (req as LoggedRequest)[STATE] = { id, logger };
    res.setHeader('X-Request-Id', id);
    // 'close' comes after 'finish' for an answered request, and alone for one the client gave up on.
    res.once('close', () => {
      const answered = res.writableFinished;
      const level = !answered ? 'warn' : res.statusCode >= 500 ? 'error' : 'info';
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        { req: described(req, id), ...apiKeyOf(res), res: { statusCode: res.statusCode }, responseTime: Date.now() - started },
        answered ? 'request completed' : 'request aborted',
      );
    });
    next();
  };
}

/**
 * A logger whose lines carry the request (and its API key, once known), built
 * on first use: most requests log nothing but their one line.
 */
export function requestLogger(req: Request, res: Response): Logger {
  const state = (req as LoggedRequest)[STATE];
  if (!state) throw new Error('requestLogger needs the requestLogging middleware in front');
  state.child ??= state.logger.child({ req: described(req, state.id), ...apiKeyOf(res) });
  return state.child;
}
