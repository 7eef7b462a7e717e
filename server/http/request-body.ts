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
import express, { type RequestHandler } from 'express';
import { ApiError } from '../errors.js';

const payloadTooLarge = () => new ApiError(413, 'payload_too_large', 'Request body is too large');

/** Thrown by the parser's hooks; the error handler answers it as it is. */
const unreadable = (message: string) => new ApiError(400, 'invalid_request', `Invalid request: ${message}`, [{ path: '/body', message }]);

const unsupportedCharset = () => new ApiError(415, 'unsupported_media_type', 'Request body must be application/json in UTF-8');
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

/**
 * Thrown from JSON.parse's reviver. body-parser strips the properties of a
 * parse error, so the error handler recognises it by its class and answers
 * with `notText()`.
 */
export class IllFormedTextError extends Error {}

export const notText = () => unreadable('the body holds a string with an unpaired surrogate (\\uD800–\\uDFFF), which is not text');

/** JSON.parse's reviver: every key and string must be well-formed Unicode. */
function wellFormed(key: string, value: unknown): unknown {
  if (!key.isWellFormed() || (typeof value === 'string' && !value.isWellFormed())) throw new IllFormedTextError();
  return value;
}

export function jsonBody(limitBytes: number): RequestHandler {
  return express.json({
    limit: limitBytes,
    inflate: false,
    verify(_req, _res, body) {
      if (!isUtf8(body)) throw unreadable('the body is not valid UTF-8');
    },
    reviver: wellFormed,
  });
}
