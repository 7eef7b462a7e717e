/**
 * Listening and stopping, the same for both servers: bounded timeouts, a
 * clear line when the port is taken, and on SIGTERM or SIGINT no new
 * connections while in-flight requests finish, then `onClose` and exit 0.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';
import type { Logger } from '../logger.js';

/** How long in-flight requests get to finish on shutdown before their connections are cut. */
export const SHUTDOWN_GRACE_MS = 10_000;

export interface ServeOptions {
  /** Names the server in its log lines and messages, e.g. "workspace service". */
  name: string;
  host: string;
  port: number;
  logger: Logger;
  /** Extra fields for the "listening" log line. */
  details?: Record<string, unknown>;
  /** Runs after the last connection has closed, e.g. to close a database. */
  onClose?: () => Promise<void>;
}

export function serve(app: Express, { name, host, port, logger, details, onClose }: ServeOptions): Server {
  const server = app.listen(port, host);
  // Bounded so that slow or idle clients cannot hold connections forever.
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  server.keepAliveTimeout = 5_000;

  server.on('error', (error: NodeJS.ErrnoException) => {
    const reason = error.code === 'EADDRINUSE' ? `port ${port} on ${host} is already in use (set PORT)` : error.message;
    process.stderr.write(`${name}: cannot listen: ${reason}\n`);
    process.exit(1);
  });
  server.on('listening', () => {
    const { port: bound } = server.address() as AddressInfo;
    logger.info({ url: `http://${host}:${bound}`, ...details }, `${name} listening`);
  });

  let closing = false;
  const shutdown = (signal: NodeJS.Signals) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    server.close(async () => {
      await onClose?.();
      logger.info('stopped');
      process.exit(0);
    });
    // Keep-alive connections with no request in flight would hold close() open.
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  return server;
}
