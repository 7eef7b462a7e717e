/**
 * `npm run console:dev`: the web console with live reload, for a frontend team.
 * It bundles the console as `npm run build` does (console/build.mjs), watching its
 * sources: a change reloads the page. The console's calls go to the Prism mock of
 * the contract (no database, no service: the contract's examples answer), or to a
 * running service.
 *
 *   npm run console:dev                                   against the Prism mock
 *   npm run console:dev -- --api http://127.0.0.1:8080    against a running service
 *   npm run console:dev -- --port 5174                    another port (default 5173; 0: any free one)
 *
 * The console and the API then share the development server's origin, as they share the
 * service's in production: the server forwards every request that is not the console's to
 * the API, so the session cookie and the CSRF token work as they do there.
 */
import { type ChildProcess } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdtemp, readFile } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { context, type Plugin } from 'esbuild';
// @ts-expect-error -- plain JavaScript, which the build runs before anything is compiled; its shapes are esbuild's.
import { BUNDLE, pageOf, STYLESHEET } from '../console/build.mjs';
import { startPrism } from '../lib/prism.js';

const RELOAD_PATH = '/console/dev/reload';
/** Added to the development bundle only: reload when the sources change. */
const LIVE_RELOAD = `new EventSource(${JSON.stringify(RELOAD_PATH)}).onmessage = () => location.reload();`;

async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** Forwards a request as it came to the API, and its answer as it came back. */
function forward(api: URL, req: IncomingMessage, res: ServerResponse): void {
  const upstream = new URL(req.url ?? '/', api);
  const sent = request(upstream, { method: req.method, headers: { ...req.headers, host: upstream.host } }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(res);
  });
  sent.on('error', (error) => {
    if (res.headersSent) return void res.destroy();
    res.writeHead(502, { 'Content-Type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify({ error_message: `The API at ${api.origin} does not answer: ${error.message}`, code: 'unavailable' }));
  });
  req.pipe(sent);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { api: { type: 'string' }, port: { type: 'string', default: process.env.CONSOLE_DEV_PORT ?? '5173' } },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be a port number, not ${values.port}`);
  let mock: { url: string; process: ChildProcess; stop(): Promise<void> } | undefined;
  if (!values.api) mock = await startPrism('workspace', await freePort());
  const api = new URL(values.api ?? mock!.url);

  // Every rebuild and every change of the stylesheet reloads the pages open on the console.
  const listeners = new Set<ServerResponse>();
  const reload = () => {
    for (const listener of listeners) listener.write('data: reload\n\n');
  };
  const out = await mkdtemp(join(tmpdir(), 'workspace-console-dev-'));
  const announce: Plugin = { name: 'reload', setup: (build) => void build.onEnd(reload) };
  const bundler = await context({
    ...BUNDLE,
    outfile: join(out, 'console.js'),
    sourcemap: 'inline',
    banner: { js: LIVE_RELOAD },
    plugins: [announce],
  });
  await bundler.watch();
  watch(STYLESHEET, reload);

  const page = pageOf('/console/assets/console.js', '/console/assets/console.css');
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === RELOAD_PATH) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' }).flushHeaders();
      listeners.add(res);
      return void req.on('close', () => listeners.delete(res));
    }
    const asset = { '/console/assets/console.js': join(out, 'console.js'), '/console/assets/console.css': STYLESHEET }[path];
    if (asset) {
      const type = asset.endsWith('.css') ? 'text/css' : 'text/javascript';
      return void readFile(asset).then(
        (body) => res.writeHead(200, { 'Content-Type': `${type}; charset=utf-8`, 'Cache-Control': 'no-store' }).end(body),
        () => res.writeHead(503, { 'Content-Type': 'text/plain' }).end('the console is still being bundled'),
      );
    }
    if (path === '/console' || path.startsWith('/console/')) {
      return void res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' }).end(page);
    }
    if (path === '/') return void res.writeHead(302, { Location: '/console' }).end();
    forward(api, req, res);
  });
  server.listen(port, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/console`;
  process.stdout.write(
    `Console: ${url}  (calls go to ${mock ? `the Prism mock at ${api.origin}: sign in with any key and secret` : api.origin})\n`,
  );

  const stop = async () => {
    server.closeAllConnections();
    server.close();
    await bundler.dispose();
    await mock?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`console:dev: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
