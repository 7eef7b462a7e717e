/**
 * Builds the console into dist/: one JavaScript bundle (the app, Preact and the
 * typed SDK, built for browsers) and one stylesheet, each named by a digest of
 * its content so that a browser may keep it for good, and the page that loads
 * them with no inline script or style (the service serves it under a strict
 * Content-Security-Policy, server/http/console.ts). esbuild bundles and minifies.
 * `npm run console:dev` (scripts/console-dev.ts) bundles the same way, watching.
 */
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/**
 * The lengths the contract allows each field the console edits, read from the bundled
 * contract at build time, so that a form refuses as you type what the service would
 * refuse, and never more (console/src/limits.ts declares them).
 */
function contractLimits() {
  const { schemas } = JSON.parse(readFileSync(join(here, '..', 'generated', 'workspace', 'openapi.json'), 'utf8')).components;
  const lengths = (schema) => ({ minLength: schema.minLength ?? 0, maxLength: schema.maxLength });
  return {
    apiKey: lengths(schemas.ApiKey),
    apiKeySecret: lengths(schemas.ApiKeySecret),
    apiKeyName: lengths(schemas.ApiKeyName),
    username: lengths(schemas.Username),
    profileText: lengths(schemas.ProfileText),
    phone: lengths(schemas.Phone),
    password: lengths(schemas.Password),
    groupName: lengths(schemas.GroupName),
    search: lengths(schemas.GetUsersRequest.properties.search),
    webhookUrl: lengths(schemas.WebhookUrl),
    webhookDescription: lengths(schemas.NewWebhook.properties.description),
  };
}

/** How the console is bundled, for the build and for development alike. */
export const BUNDLE = {
  entryPoints: [join(here, 'src', 'main.tsx')],
  bundle: true,
  format: 'esm',
  target: ['es2022'],
  platform: 'browser',
  jsx: 'automatic',
  jsxImportSource: 'preact',
  // The SDK from its sources, built for browsers: the console is its first browser user.
  tsconfig: join(here, 'tsconfig.json'),
  legalComments: 'none',
  // The CSV import (lib/user-import.ts) reads with csv-parse: its browser build here, which needs no Buffer.
  alias: { 'csv-parse/sync': 'csv-parse/browser/esm/sync' },
  define: { 'process.env.NODE_ENV': '"production"', CONTRACT_LIMITS: JSON.stringify(contractLimits()) },
};

export const STYLESHEET = join(here, 'src', 'console.css');

/** The console's one page: the stylesheet and the script at these addresses, nothing inline. */
export function pageOf(script, style) {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Workspace console</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${style}" />
    <script type="module" src="${script}"></script>
  </head>
  <body>
    <div id="app"></div>
    <noscript>The console needs JavaScript.</noscript>
  </body>
</html>
`;
}

async function main() {
  const out = join(here, 'dist');
  const named = (text, extension) => `console-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.${extension}`;
  const bundled = await build({ ...BUNDLE, minify: true, write: false });
  const script = bundled.outputFiles[0].text;
  const style = readFileSync(STYLESHEET, 'utf8');
  const scriptName = named(script, 'js');
  const styleName = named(style, 'css');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'assets'), { recursive: true });
  writeFileSync(join(out, 'assets', scriptName), script);
  writeFileSync(join(out, 'assets', styleName), style);
  writeFileSync(join(out, 'index.html'), pageOf(`/console/assets/${scriptName}`, `/console/assets/${styleName}`));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
