/**
 * Cross-origin access for browser pages (docs/sdks.md, "Calling the service
 * from a browser"): off unless CORS_ORIGINS names origins, and then only for
 * exactly those, on the contract's paths, with what the contract uses
 * (lib/contract/cross-origin.ts). The `cors` package answers preflights and
 * adds the headers; an origin not on the list gets no access header, so the
 * browser keeps the answer from the page.
 */
import cors from 'cors';
import type { RequestHandler } from 'express';
import { CROSS_ORIGIN } from '../../lib/contract/cross-origin.js';

/** How long a browser may reuse a preflight's answer; Chromium caps it at 2 hours. */
export const PREFLIGHT_MAX_AGE_SECONDS = 7_200;

export function crossOriginAccess(origins: readonly string[]): RequestHandler {
  const allowed = new Set(origins);
  const access = cors({
    origin: (origin, decide) => decide(null, origin !== undefined && allowed.has(origin)),
    credentials: true,
    methods: CROSS_ORIGIN.methods,
    allowedHeaders: CROSS_ORIGIN.requestHeaders,
    exposedHeaders: CROSS_ORIGIN.exposedHeaders,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  });
  // Only on the contract's paths: OPTIONS anywhere else stays a 404 or 405 like any other method there.
  return (req, res, next) => (CROSS_ORIGIN.paths.has(req.path) ? access(req, res, next) : next());
}
