/**
 * Reading a request's JSON body, and refusing what cannot be read faithfully:
 *   - a `Content-Length` over the limit: 413 at once, without reading the body
 *     (body-parser would read, and discard, the whole of it first);
 *   - a compressed body (`Content-Encoding` other than identity): 415. Bodies
 *     are small, and inflating them would let a few bytes cost megabytes;
 *   - bytes that are not UTF-8: 400, where the decoder would have put U+FFFD
 *     in their place and stored a changed value without a word;
 *   - strings holding an unpaired surrogate (`"\ud800"`, valid JSON but not
 *     Unicode text): 400, where the stores would each replace it in their own way.
 * An answer sent before the body was read closes the connection (error-handler.ts),
 * so the rest of that body is never read.
 */
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import express, { type RequestHandler } from 'express';
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
    if (declared !== undefined && Number(declared) > limitBytes) return next(payloadTooLarge());
    const charset = CHARSET.exec(req.headers['content-type'] ?? '')?.[1]?.toLowerCase();
    next(charset !== undefined && charset !== 'utf-8' && charset !== 'utf8' ? unsupportedCharset() : undefined);
  };
}

const notText = () => unreadable('the body holds a string with an unpaired surrogate (\\uD800–\\uDFFF), which is not text');

/**
 * A body whose raw text escapes a surrogate (`\\uD800`–`\\uDFFF`): only such a body
 * can parse into a string that is not well-formed Unicode, since its bytes
 * are valid UTF-8 already. Marked while reading, so that only it is walked
 * after parsing (a reviver on every body cost update_user a tenth of its speed).
 */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/;
const ESCAPES_SURROGATE = Symbol('the body escapes a surrogate');
type MarkedRequest = IncomingMessage & { [ESCAPES_SURROGATE]?: true };

/** Whether every key and string in a parsed JSON value is well-formed Unicode. */
function isWellFormedText(value: unknown): boolean {
  if (typeof value === 'string') return value.isWellFormed();
  if (Array.isArray(value)) return value.every(isWellFormedText);
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).every(([key, member]) => key.isWellFormed() && isWellFormedText(member));
  }
  return true;
}

/** The JSON body parser, then the check of a marked body's text. */
export function jsonBody(limitBytes: number): RequestHandler[] {
  return [
    express.json({
      limit: limitBytes,
      inflate: false,
      verify(req, _res, body) {
        if (!isUtf8(body)) throw unreadable('the body is not valid UTF-8');
        if (body.includes('\\u') && SURROGATE_ESCAPE.test(body.toString('latin1'))) (req as MarkedRequest)[ESCAPES_SURROGATE] = true;
      },
    }),
    (req, _res, next) => next((req as MarkedRequest)[ESCAPES_SURROGATE] && !isWellFormedText(req.body) ? notText() : undefined),
  ];
}
