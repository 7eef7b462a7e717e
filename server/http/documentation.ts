/**
 * The API reference at /docs: one page built with the service (`npm run
 * build` renders the bundled contract with Redoc into
 * server/dist/docs/index.html), the contract and the renderer inside it. No
 * renderer is installed to serve it and nothing is rendered at run time.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';
import type { Request } from 'express';
import { getErrorReference } from './error-reference.js';
import { inlineDigests } from './inline-digests.js';
import { servedAddress } from './served-address.js';
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
  /** The page compressed, each coding made once, off the event loop, when first asked for. */
  encoded: Map<PageCoding, Promise<Buffer>>;
}

/** The codings the page is kept in besides its text, best first. */
const PAGE_CODINGS = ['br', 'gzip'] as const;
type PageCoding = (typeof PAGE_CODINGS)[number];

const compressors: Record<PageCoding, (text: string) => Promise<Buffer>> = {
  br: (text) => promisify(brotliCompress)(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 9 } }),
  gzip: (text) => promisify(gzip)(text, { level: 9 }),
};

/**
 * The page may run only its own inline scripts (allowed by their digests) and
 * load nothing from elsewhere. Redoc injects its styles inline and runs its
 * search in a blob: worker.
 */
function policyFor(html: string): string {
  const digests = inlineDigests(html, 'script');
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
 * The page for each address it is read at: the contract inside it names that
 * address as its server. The first few addresses are kept for the process's
 * life (a deployment has one or two names); any other reads the page that
 * names no address, so that no run of made-up Host headers makes the service
 * build and compress page after page.
 */
const MAX_ADDRESSES = 4;
const pagesByAddress = new Map<string, BuiltPage>();
let unbuilt: BuiltPage | undefined;

function referencePage(req: Request): BuiltPage {
  const html = referencePageText();
  if (html === undefined) return (unbuilt ??= pageOf(UNBUILT_PAGE));
  const told = servedAddress(req);
  const address = told !== undefined && (pagesByAddress.has(told) || pagesByAddress.size < MAX_ADDRESSES) ? told : '';
  let page = pagesByAddress.get(address);
  if (!page) {
    // The build wrote a placeholder for the server (reference-page.ts); an address that cannot be told shows as "/".
    page = pageOf(html.replaceAll(SERVED_ADDRESS_PLACEHOLDER, address || '/'));
    pagesByAddress.set(address, page);
  }
  return page;
}

function encodedPage(page: BuiltPage, coding: PageCoding): Promise<Buffer> {
  let encoded = page.encoded.get(coding);
  if (!encoded) {
    encoded = compressors[coding](page.html);
    page.encoded.set(coding, encoded);
  }
  return encoded;
}

/**
 * On a narrow screen the renderer floats its menu button over the content's
 * right edge, covering text as it scrolls by. Made smaller and moved into the
 * content's own right margin (32 px there), it covers nothing and stays a
 * 28 px target, above WCAG 2.2's 24 px minimum (2.5.8).
 */
export const NARROW_SCREEN_STYLE =
  '<style>@media (max-width: 50rem) {' +
  ' [data-testid="floating-button"] { right: 2px; bottom: 24px; width: 28px; height: 28px; min-width: 0; padding: 4px; }' +
  ' }</style>';

function pageOf(built: string): BuiltPage {
  const html = built.replace('</head>', `${NARROW_SCREEN_STYLE}</head>`);
  return {
    html,
    policy: policyFor(html),
    tag: createHash('sha256').update(html).digest('hex').slice(0, 32),
    encoded: new Map(),
  };
}

export const documentationHandlers: PageHandlers = {
  getErrorReference,
  /**
   * Compressed once per coding and kept, rather than by the compression middleware on every
   * request: 2.6 MB through Brotli is tens of milliseconds, which no reader without a key
   * should be able to ask of the service again and again. (The middleware leaves an answer
   * that has its Content-Encoding alone.)
   */
  async getApiReference(req, res) {
    const page = referencePage(req);
    const coding = req.acceptsEncodings(...PAGE_CODINGS, 'identity');
    const chosen = coding === 'br' || coding === 'gzip' ? coding : undefined;
    // Cacheable with revalidation, unlike the API's answers (no-store): express answers 304 to a fresh If-None-Match.
    // Each coding is a representation of its own, with a tag of its own.
    res
      .set({
        'Content-Security-Policy': page.policy,
        ETag: `"${page.tag}${chosen ? `-${chosen}` : ''}"`,
        'Cache-Control': 'no-cache',
        Vary: 'Host, Accept-Encoding',
      })
      .type('html');
    if (!chosen) return void res.send(page.html);
    res.set('Content-Encoding', chosen).send(await encodedPage(page, chosen));
  },
};
