/**
 * The API reference at /docs: Redoc's standalone script, served from this
 * package's own dependencies (no CDN, so it works offline), rendering the
 * contract that /openapi.json serves.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { PageHandlers } from '../handlers/types.js';

const REDOC_SCRIPT = readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8');

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>Workspace User API reference</title>
  <style>body { margin: 0; }</style>
</head>
<body>
  <redoc spec-url="/openapi.json" hide-download-button="false"></redoc>
  <script src="/docs/redoc.standalone.js"></script>
</body>
</html>
`;

/**
 * The page may load nothing from elsewhere: Redoc's footer would otherwise
 * fetch its logo from a CDN. Redoc injects its styles inline and runs its
 * search in a blob: worker.
 */
const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "worker-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The renderer changes only with the package, so browsers may keep it for a day. */
const ASSET_CACHE = 'public, max-age=86400';

export const documentationHandlers: PageHandlers = {
  getApiReference(_req, res) {
    res.set('Content-Security-Policy', PAGE_POLICY).type('html').send(PAGE);
  },
  getApiReferenceScript(_req, res) {
    res.set('Cache-Control', ASSET_CACHE).type('text/javascript').send(REDOC_SCRIPT);
  },
};
