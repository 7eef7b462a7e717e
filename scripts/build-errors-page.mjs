// The error reference page: docs/errors.md rendered into one HTML page, which the
// service serves at /docs/errors (server/http/error-reference.ts). Each code's
// heading gets the code as its id, so that an error's `type` opens its section.
//
//   node scripts/build-errors-page.mjs docs/errors.md server/dist/docs/errors.html
//
// Plain JavaScript, run by `npm run build` (server/package.json) with marked, a
// development dependency: nothing renders Markdown at run time.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Marked } from 'marked';

/** A heading's id: a code as it is (`weak_password`), other headings as GitHub makes theirs. */
const idOf = (text) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .trim()
    .replace(/\s+/g, '-');

const marked = new Marked({
  renderer: {
    heading({ tokens, depth }) {
      const text = this.parser.parseInline(tokens);
      const plain = tokens.map((token) => token.text ?? token.raw).join('');
      return `<h${depth} id="${idOf(plain)}">${text}</h${depth}>\n`;
    },
  },
});

// The page's one style, allowed by its digest (the service's policy for the page).
export const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;color:#1b1b1b}' +
  'code,pre{font-family:ui-monospace,monospace;background:#f3f3f3}pre{padding:1rem;overflow-x:auto}h3{margin-top:2rem}';

/** The page for the Markdown of docs/errors.md. */
export function renderErrorsPage(markdown) {
  const body = marked
    .parse(markdown)
    // Links between the Markdown files lead to the repository's pages, which the service does not serve.
    .replace(/<a href="([a-z-]+)\.md">([^<]*)<\/a>/g, '$2 (docs/$1.md)');
  return `<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Errors · Workspace User API</title><style>${STYLE}</style></head>
<body><main>
${body}</main></body>
</html>
`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [source, destination] = process.argv.slice(2);
  if (!source || !destination) throw new Error('usage: build-errors-page.mjs <errors.md> <errors.html>');
  mkdirSync(dirname(destination), { recursive: true });
  writeFileSync(destination, renderErrorsPage(readFileSync(source, 'utf8')));
}
