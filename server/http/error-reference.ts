/**
 * The error reference at /docs/errors: docs/errors.md as `npm run build`
 * renders it (scripts/build-errors-page.mjs) into server/dist/docs/errors.html.
 * Every error's `type` is the address of its code's section here
 * (problem-details.ts). The page runs no script and loads nothing; its one
 * style is allowed by its digest.
 */
import { readFileSync } from 'node:fs';
import type { RequestHandler } from 'express';
import { projectFile } from '../../lib/project-root.js';
import { inlineDigests } from './inline-digests.js';

/** Where `npm run build` writes the page. */
export const ERROR_REFERENCE_PAGE = projectFile('server', 'dist', 'docs', 'errors.html');

/** What /docs/errors shows when the service runs from sources never built. */
const UNBUILT_PAGE = `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>Errors · Workspace User API</title></head>
<body><main>
  <h1>Errors</h1>
  <p>The error reference is made by <code>npm run build</code>, which has not run in this checkout.
  Its source is docs/errors.md in the project.</p>
</main></body>
</html>
`;

function policyFor(html: string): string {
  const styles = inlineDigests(html, 'style');
  return [
    "default-src 'none'",
    `style-src ${styles.join(' ') || "'none'"}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

let page: { html: string; policy: string } | undefined;

function errorReference(): { html: string; policy: string } {
  if (page) return page;
  let html: string;
  try {
    html = readFileSync(ERROR_REFERENCE_PAGE, 'utf8');
  } catch {
    // Not kept: a build may come while the service runs from sources (`npm run dev`).
    return { html: UNBUILT_PAGE, policy: policyFor(UNBUILT_PAGE) };
  }
  page = { html, policy: policyFor(html) };
  return page;
}

export const getErrorReference: RequestHandler = (_req, res) => {
  const { html, policy } = errorReference();
  res.set({ 'Content-Security-Policy': policy, 'Cache-Control': 'no-cache' }).type('html').send(html);
};
