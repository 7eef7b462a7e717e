/**
 * Reading a request's JSON body, and refusing what cannot be read faithfully:
 *   - a `Content-Length` over the limit: 413 at once, without reading the body
 *     (body-parser would read, and discard, the whole of it first);
 *   - a compressed body (`Content-Encoding` other than identity): 415. Bodies
 *     are small, and inflating them would let a few bytes cost megabytes;
 *   - bytes that are not UTF-8: 400, where the decoder would have put U+FFFD
 *     in their place and stored a changed value without a word;
 *   - strings holding an unpaired surrogate (`"\ud800"`, valid JSON but not
 *     Unicode text): 400, where the stores would each replace it in their own way;
 *   - strings holding U+0000 (`"\u0000"`), in the body or escaped in the URL
 *     (`%00`): 400. PostgreSQL cannot store it (SQLite can): refused on both, a
 *     request is answered the same whichever store is behind the service.
 *   - a body with no declared length (chunked) that grows past the limit: 413
 *     as soon as it does, and the connection closed (refuseOverlongStream).
 * An answer sent before the body was read closes the connection (error-handler.ts),
 * so the rest of that body is never read.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { ServiceError } from '../service-errors.js';

const payloadTooLarge = () => new ServiceError(413, 'payload_too_large', 'Request body is too large');

/** Thrown by the parser's hooks; the error handler answers it as it is. */
const unreadable = (message: string) =>
  new ServiceError(400, 'invalid_request', `Invalid request: ${message}`, [{ path: '/body', message }]);

const unsupportedCharset = () => new ServiceError(415, 'unsupported_media_type', 'Request body must be application/json in UTF-8');
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)/i;

/**
 * Refuses, before any byte of the body is read, a declared length over the
 * limit and a charset other than UTF-8 (body-parser would decode UTF-16 too).
 */
export function refuseUnreadableBody(limitBytes: number): RequestHandler {
  return (req, _res, next) => {
    const declared = req.headers['content-length'];
    if (declared !== undefined && Number(declared) > limitBytes) return void next(payloadTooLarge());
    const charset = CHARSET.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    next(charset !== undefined && charset !== 'utf-8' && charset !== 'utf8' ? unsupportedCharset() : undefined);
  };
}

/**
 * Counts a chunked body's bytes as they arrive and, once they pass the limit,
 * answers 413 at once (through `answer`, the app's error handler) and
 * destroys the connection when that is sent. body-parser would notice too,
 * but it reads the rest of the body before it answers, and a body that never
 * ends is never answered and never closed.
 *
 * The listener is added just before body-parser adds its own, in the same
 * turn, so both see every chunk.
 */
export function refuseOverlongStream(limitBytes: number, answer: ErrorRequestHandler): RequestHandler {
  return (req, res, next) => {
    if (req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] === undefined) return void next();
    let received = 0;
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received <= limitBytes) return;
      req.off('data', count);
      res.once('finish', () => req.socket.destroy());
      answer(payloadTooLarge(), req, res, () => {});
    };
    req.on('data', count);
    req.once('end', () => req.off('data', count));
    next();
  };
}

const unpairedSurrogate = () => unreadable('the body holds a string with an unpaired surrogate (\\uD800–\\uDFFF), which is not text');
const nulInBody = () => unreadable('the body holds a string with U+0000 (\\u0000), which the service does not store');

/**
 * A body whose raw text escapes a surrogate (`\\uD800`–`\\uDFFF`) or U+0000: only such a
 * body can parse into a string that is not well-formed Unicode or holds U+0000, since its
 * bytes are valid UTF-8 already and JSON has U+0000 only as an escape. Marked while reading,
 * so that only it is walked after parsing (a reviver on every body cost update_user a tenth
 * of its speed).
 */
const SUSPECT_ESCAPE = /\\u(?:[dD][89a-fA-F]|0000)/;
const SUSPECT = Symbol('the body escapes a surrogate or U+0000');
type MarkedRequest = IncomingMessage & { [SUSPECT]?: true };

/** What makes a parsed JSON value's keys and strings other than text the service stores, if anything; a walk with a stack of its own, not the call stack. */
function notStorableText(value: unknown): ServiceError | undefined {
  const pending: unknown[] = [value];
  const check = (text: string) => (!text.isWellFormed() ? unpairedSurrogate() : text.includes('\0') ? nulInBody() : undefined);
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current === 'string') {
      const refusal = check(current);
      if (refusal) return refusal;
    } else if (Array.isArray(current)) {
      pending.push(...(current as unknown[]));
    } else if (current !== null && typeof current === 'object') {
      for (const [key, member] of Object.entries(current)) {
        const refusal = check(key);
        if (refusal) return refusal;
        pending.push(member);
      }
    }
  }
  return undefined;
}

/**
 * Refuses a URL that escapes U+0000 (`%00`) in its path or query: a SCIM id or filter
 * holding it would reach the database (the other bytes a URL cannot hold, Node's parser
 * refuses before any route).
 */
export const refuseNulInUrl: RequestHandler = (req, _res, next) => {
  if (!/%00/i.test(req.originalUrl)) return void next();
  const message = 'the URL holds U+0000 (%00), which the service does not store';
  next(new ServiceError(400, 'invalid_request', `Invalid request: ${message}`, [{ path: '/url', message }]));
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENERS = new Set([0x5b, 0x7b]); // [ {
const CLOSERS = new Set([0x5d, 0x7d]); // ] }

/** Whether the raw JSON opens more than `limit` arrays and objects inside each other (brackets in strings aside). */
function nestsDeeperThan(bytes: Buffer, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let at = 0; at < bytes.length; at++) {
    const byte = bytes.readUInt8(at);
    if (inString) {
      if (byte === BACKSLASH) at++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (OPENERS.has(byte)) {
      if (++depth > limit) return true;
    } else if (CLOSERS.has(byte)) {
      depth--;
    }
  }
  return false;
}

/**
 * The JSON body parser, then the check of a marked body's text. Nesting is
 * bounded before parsing: every later walk of the body (the validator's, the
 * surrogate check's) then has a known depth.
 */
export function jsonBody(limitBytes: number, depthLimit: number): RequestHandler[] {
  return [
    express.json({
      // SCIM's media type too: its routes take it (scim/routes.ts), the workspace API's refuse it (415).
      type: ['application/json', 'application/scim+json'],
      limit: limitBytes,
      inflate: false,
      verify(req, _res, body) {
        if (!isUtf8(body)) throw unreadable('the body is not valid UTF-8');
        // A body shorter than the limit cannot nest past it.
        if (body.length > depthLimit && nestsDeeperThan(body, depthLimit))
          throw unreadable(`the JSON is nested more than ${depthLimit} deep`);
        if (body.includes('\\u') && SUSPECT_ESCAPE.test(body.toString('latin1'))) (req as MarkedRequest)[SUSPECT] = true;
      },
    }),
    (req, _res, next) => next((req as MarkedRequest)[SUSPECT] ? notStorableText(req.body) : undefined),
  ];
}
