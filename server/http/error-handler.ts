/**
 * The one error handler: whatever went wrong (the body parser, the contract
 * validator, a handler, an unknown path), the answer is the contract's Error
 * shape in JSON, never HTML and never a stack trace. It maps kinds of error to
 * answers and knows nothing of bodies: the validator's refusals arrive as
 * ServiceErrors already (validation-errors.ts).
 */
import type { ErrorRequestHandler, Request, RequestHandler } from 'express';
import { ServiceError, databaseUnavailable, explain, internalError, routeNotFound } from '../service-errors.js';
import { StoreUnavailableError } from '../store/faults.js';
import { IdempotencyKeyHeldError } from '../store/records.js';
import { idempotencyKeyInUse } from './idempotency.js';
import { PROBLEM_MEDIA_TYPE } from './problem-details.js';
import { requestLogger } from './request-logging.js';
import { servedAddress } from './served-address.js';
import { sendJson } from './send-json.js';

interface BodyParserError {
  type: string;
  status: number;
}

function isBodyParserError(error: unknown): error is BodyParserError {
  return (
    error instanceof Error &&
    typeof (error as Partial<BodyParserError>).type === 'string' &&
    typeof (error as Partial<BodyParserError>).status === 'number'
  );
}

/** The answer to an error: a ServiceError as it is, a database fault as 503, the body parser's refusals, anything else a 500. */
export function toServiceError(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  // Another request (on another instance) holds the Idempotency-Key this change was made under: it was undone.
  if (error instanceof IdempotencyKeyHeldError) return idempotencyKeyInUse();
  if (error instanceof StoreUnavailableError) return databaseUnavailable(error.kind);
  if (isBodyParserError(error)) {
    switch (error.type) {
      case 'entity.parse.failed':
        return new ServiceError(400, 'invalid_request', 'Invalid request: the body is not valid JSON');
      case 'entity.too.large':
        return new ServiceError(413, 'payload_too_large', 'Request body is too large');
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return new ServiceError(415, 'unsupported_media_type', 'Request body must be application/json in UTF-8');
      default:
        if (error.status >= 400 && error.status < 500)
          return new ServiceError(400, 'invalid_request', 'Invalid request: the body could not be read');
    }
  }
  return internalError();
}

/** The last route: anything no route answered. */
export const notFoundHandler: RequestHandler = (req) => {
  throw routeNotFound(req.method, req.path);
};

/** An error's answer: its status, its headers, its body and the body's media type. */
export interface ErrorAnswer {
  status: number;
  headers?: Record<string, string> | undefined;
  body: unknown;
  type?: string;
}

/**
 * An error handler answering with `answerOf`: the contract's shape here, SCIM's for
 * /scim/v2 (scim/errors.ts). Whatever the shape, a fault is logged the same way and an
 * answer that cannot be sent closes the connection.
 */
export function errorHandlerAnswering(answerOf: (error: unknown, req: Request) => ErrorAnswer): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const answer = answerOf(error, req);
    if (error instanceof StoreUnavailableError) {
      // A fault of the moment, not a bug: its cause goes to the log, without a stack.
      requestLogger(req, res).warn({ fault: error.kind, cause: explain(error.cause) }, 'database unavailable');
    } else if (answer.status >= 500 && !(error instanceof ServiceError)) {
      // The cause goes to the log, under the request id the client was given; the client gets nothing more.
      requestLogger(req, res).error({ err: error }, 'request failed');
    }
    // Too late for an answer (a listing cut off mid-stream, a 413 sent before the body was read):
    // the connection goes, which the client sees as a cut answer. Express's own handler would do
    // the same, and print the stack to stderr besides.
    if (res.headersSent) return void req.socket.destroy();
    // Answered before its body was read (413 on the declared length, say): close rather than read the rest.
    if (!req.complete) res.set('Connection', 'close');
    res.status(answer.status).set(answer.headers ?? {});
    if (answer.type) res.type(answer.type);
    sendJson(req, res, answer.body);
  };
}

/** The id the request was given (request-logging.ts), which its answer carries as X-Request-Id. */
const requestIdOf = (req: Request): string | undefined => {
  const id = req.res?.getHeader('X-Request-Id');
  return typeof id === 'string' ? id : undefined;
};

/** The workspace API's answer to an error, its `type` naming the error reference at `origin` (null: none is served). */
const workspaceAnswer =
  (origin: (req: Request) => string | null | undefined) =>
  (error: unknown, req: Request): ErrorAnswer => {
    const serviceError = toServiceError(error);
    return {
      status: serviceError.status,
      headers: serviceError.headers,
      body: serviceError.toBody({ origin: origin(req), requestId: requestIdOf(req) }),
      // RFC 9457's media type to a client that asks for it (`Accept`); JSON to the rest, as Kasm's clients expect.
      ...(req.accepts('application/json', PROBLEM_MEDIA_TYPE) === PROBLEM_MEDIA_TYPE ? { type: PROBLEM_MEDIA_TYPE } : {}),
    };
  };

export const errorHandler: ErrorRequestHandler = errorHandlerAnswering(workspaceAnswer(servedAddress));

/** The sample data server's: the same body, its problems `about:blank`, since it serves no error reference. */
export const sampleErrorHandler: ErrorRequestHandler = errorHandlerAnswering(workspaceAnswer(() => null));
