/**
 * Starts the workspace service: `npm start`. Opens the database (applying
 * migrations), creates a first key on an empty one, listens, and on SIGTERM
 * or SIGINT lets in-flight requests finish before closing the database.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { createFirstApiKey } from './auth/first-key.js';
import { ConfigError, loadConfig } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { openStore, UnsupportedDatabaseError } from './store/open-store.js';
import type { Store } from './store/store.js';

/** How long in-flight requests get to finish on shutdown before their connections are cut. */
const SHUTDOWN_GRACE_MS = 10_000;

function announceFirstKey(apiKey: string, secret: string): void {
  // Printed, not logged: the log never holds a secret, and this one must be seen once.
  process.stdout.write(
    [
      '',
      'No API key existed, so one with every permission was created. Its secret is shown only now; keep it safe:',
      '',
      `  ${JSON.stringify({ api_key: apiKey, api_key_secret: secret })}`,
      '',
      'Create more keys with: npm run admin -- create-key --name NAME --permissions users_view,users_modify',
      '',
      '',
    ].join('\n'),
  );
}

function shutDownOnSignals(server: Server, store: Store, logger: Logger): void {
  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    server.close(async () => {
      await store.close();
      logger.info('stopped');
      process.exit(0);
    });
    // Keep-alive connections with no request in flight would hold close() open.
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const store = await openStore(config.databaseUrl);
  const firstKey = await createFirstApiKey(store);
  if (firstKey) announceFirstKey(firstKey.record.api_key, firstKey.secret);

  const app = createApp({
    store,
    logger,
    validateResponses: config.validateResponses,
    authThrottle: config.authThrottle,
    trustProxy: config.trustProxy,
  });
  const server = app.listen(config.port, config.host);
  // Bounded so that slow or idle clients cannot hold connections forever.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;
  server.on('error', (error: NodeJS.ErrnoException) => {
    const reason = error.code === 'EADDRINUSE' ? `port ${config.port} on ${config.host} is already in use (set PORT)` : error.message;
    process.stderr.write(`workspace-user-api: cannot listen: ${reason}\n`);
    process.exit(1);
  });
  server.on('listening', () => {
    const { port } = server.address() as AddressInfo;
    logger.info({ url: `http://${config.host}:${port}`, database: config.databaseUrl.split(':')[0] }, 'workspace service listening');
  });
  shutDownOnSignals(server, store, logger);
}

main().catch((error: unknown) => {
  const expected = error instanceof ConfigError || error instanceof UnsupportedDatabaseError;
  process.stderr.write(`workspace-user-api: cannot start: ${expected ? (error as Error).message : String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
