/**
 * The web console at /console (docs/console.md): a page of the service's own
 * origin, built by `npm run build` into console/dist. Every screen's URL
 * (`/console/users/…`) answers the same page, which shows the screen; its
 * script and stylesheet, named by a digest of their content, are kept by
 * browsers for good. The page runs under a Content-Security-Policy that lets
 * it load and call only this origin, and run no inline script or style.
 *
 * The console is a client of the API, not a part of it: its pages are not
 * operations of the contract (decision 43).
 */
import express, { type RequestHandler, Router } from 'express';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { projectFile } from '../../lib/project-root.js';
import { ServiceError } from '../service-errors.js';

/** Where `npm run build` puts the console (console/build.mjs). */
export const CONSOLE_BUILD = projectFile('console', 'dist');

/** Nothing but this origin; no inline script or style, no frames, no plugins, forms posted only here. */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const notBuilt = () =>
  new ServiceError(503, 'not_ready', 'The console is not built: run npm run build (it builds the console with the service)');

export function consolePages(build = CONSOLE_BUILD): Router {
  const router = Router({ caseSensitive: true, strict: true });
  const page = join(build, 'index.html');
  router.use(
    '/assets',
    express.static(join(build, 'assets'), {
      index: false,
      etag: false,
      // Named by their content: a new build has new names, so a browser may keep these for good.
      setHeaders: (res) => res.setHeader('Cache-Control', 'public, max-age=31536000, immutable'),
    }),
    (_req, _res, next) => next(new ServiceError(404, 'not_found', 'No such file of the console')),
  );
  const servePage: RequestHandler = (_req, res, next) => {
    if (!existsSync(page)) return void next(notBuilt());
    res.set({ 'Content-Security-Policy': CONSOLE_CSP, 'Cache-Control': 'no-cache', 'Referrer-Policy': 'same-origin' });
    res.sendFile(page, (error) => {
      if (error) next(error);
    });
  };
  router.get(/.*/, servePage);
  return router;
}
