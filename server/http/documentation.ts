/**
 * The API reference at /docs: one page built with the service (`npm run
 * build` renders the bundled contract with Redoc into
 * server/dist/docs/index.html), the contract and the renderer inside it. No
 * renderer is installed to serve it and nothing is rendered at run time.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Request } from 'express';
import { LRUCache } from 'lru-cache';
import { projectFile } from '../../lib/project-root.js';
import { SERVED_ADDRESS_PLACEHOLDER } from '../reference-page.js';
import type { PageHandlers } from '../handlers/types.js';

/** Where `npm run build` writes the page. */
export const API_REFERENCE_PAGE = projectFile('server', 'dist', 'docs', 'index.html');

interface BuiltPage {
  html: string;
  policy: string;
  /** A strong tag of the page: it changes only when the service is built again. */
  tag: string;
}

/**
 * The page may run only its own inline scripts (allowed by their digests) and
 * load nothing from elsewhere. Redoc injects its styles inline and runs its
 * search in a blob: worker.
 */
function policyFor(html: string): string {
  const digests = [...html.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map(
    ([, body]) =>
      `'sha256-${createHash('sha256')
        .update(body ?? '')
        .digest('base64')}'`,
  );
  return [
    "default-src 'none'",
    `script-src ${digests.join(' ') || "'none'"}`,
    "worker-src 'self' blob:",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** What /docs shows when the service runs from sources never built (`npm run dev` on a fresh clone). */
const UNBUILT_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Workspace User API reference</title></head>
<body>
  <h1>Workspace User API reference</h1>
  <p>The rendered reference is made by <code>npm run build</code>, which has not run in this checkout.
  The contract itself is at <a href="/openapi.json">/openapi.json</a>.</p>
</body>
</html>
`;

let built: string | undefined;

/** The built page's text, read once it exists. */
function referencePageText(): string | undefined {
  if (built) return built;
  try {
    built = readFileSync(API_REFERENCE_PAGE, 'utf8');
  } catch {
    return undefined;
  }
  return built;
}

/**
 * The address a reader reached the service at (scheme from `trust proxy`,
 * host and port from the Host header), for the page's server; undefined when
 * the Host header is anything but a host name or address and a port, since
 * it is written into the page.
 */
function servedAddress(req: Request): string | undefined {
  const host = req.get('host') ?? '';
  const plain = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;
  return plain.test(host) ? `${req.protocol}://${host}` : undefined;
}

/** The page for each address it is read at: the contract inside it names that address as its server. */
const pagesByAddress = new LRUCache<string, BuiltPage>({ max: 16 });

function referencePage(req: Request): BuiltPage {
  const html = referencePageText();
  if (html === undefined) return pageOf(UNBUILT_PAGE);
  const address = servedAddress(req) ?? '';
  let page = pagesByAddress.get(address);
  if (!page) {
    // The build wrote a placeholder for the server (reference-page.ts); an address that cannot be told shows as "/".
    page = pageOf(html.replaceAll(SERVED_ADDRESS_PLACEHOLDER, address || '/'));
    pagesByAddress.set(address, page);
  }
  return page;
}

/**
 * On a narrow screen the renderer floats its menu button over the content's
 * right edge, covering text as it scrolls by. Made smaller and moved into the
 * content's own right margin (32 px there), it covers nothing and stays a
 * 28 px target, above WCAG 2.2's 24 px minimum (2.5.8).
 */
const NARROW_SCREEN_STYLE =
  '<style>@media (max-width: 50rem) {' +
  ' [data-testid="floating-button"] { right: 2px; bottom: 24px; width: 28px; height: 28px; min-width: 0; padding: 4px; }' +
  ' }</style>';

function pageOf(built: string): BuiltPage {
  const html = built.replace('</head>', `${NARROW_SCREEN_STYLE}</head>`);
  return { html, policy: policyFor(html), tag: `"${createHash('sha256').update(html).digest('hex').slice(0, 32)}"` };
}

export const documentationHandlers: PageHandlers = {
  getApiReference(req, res) {
    const page = referencePage(req);
    // Cacheable with revalidation, unlike the API's answers (no-store): express answers 304 to a fresh If-None-Match.
    res.set({ 'Content-Security-Policy': page.policy, ETag: page.tag, 'Cache-Control': 'no-cache', Vary: 'Host' }).type('html');
    res.send(page.html);
  },
};
