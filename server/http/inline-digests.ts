/**
 * The digests of a page's inline scripts or styles, as a Content-Security-Policy
 * source list allows them (`'sha256-…'`): the built pages (/docs, /docs/errors)
 * run and style only what they carry.
 */
import { createHash } from 'node:crypto';

export function inlineDigests(html: string, element: 'script' | 'style'): string[] {
  const pattern = new RegExp(`<${element}\\b[^>]*>([\\s\\S]*?)</${element}>`, 'g');
  return [...html.matchAll(pattern)].map(
    ([, body]) =>
      `'sha256-${createHash('sha256')
        .update(body ?? '')
        .digest('base64')}'`,
  );
}
