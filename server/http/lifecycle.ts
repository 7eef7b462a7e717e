/**
 * Listening and stopping, the same for both servers: bounded timeouts, a
 * clear line when the port is taken, and on SIGTERM or SIGINT no new
 * connections while in-flight requests finish, then `onClose` and exit 0.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { clientKey } from './client-key.js';
import type { Logger } from '../logger.js';
import { errorBody, ServiceError } from '../service-errors.js';

/** What answers requests: an express app, or the service's stand-in while it starts (starting.ts). */
export type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/** How long in-flight requests get to finish on shutdown before their connections are cut. */
export const SHUTDOWN_GRACE_MS = 10_000;

/** The limits every connection lives under (README, Operations). */
export const SERVER_TIMEOUTS = {
  /** From connecting to the end of the request's headers. */
  headersMs: 10_000,
  /** From connecting to the end of the request's body. */
  requestMs: 30_000,
  /** How long an idle keep-alive connection stays open. */
  keepAliveMs: 5_000,
  /**
   * How often Node checks the first two. Its default, 30 s, let a slow client
   * hold a connection for up to 30 s past either limit; 1 s keeps them within a second.
   */
  checkIntervalMs: 1_000,
};

/** How many connections may be open at once, so that no client can take every file descriptor (MAX_CONNECTIONS…). */
export interface ConnectionLimits {
  /** In all. */
  total: number;
  /** From one client address (an IPv6 client: its /64). Behind a proxy every connection is the proxy's. */
  perClient: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { total: 1_000, perClient: 100 };

/** How long a refused or timed-out connection gets to take its short answer before it is destroyed regardless. */
const FAREWELL_MS = 1_000;

/**
 * A refusal made before any route sees the request, in the shape of the protocol its path
 * speaks (the assembly knows the protocols); `path` is undefined when no request was read.
 */
export type RefusalAnswer = (path: string | undefined, refusal: ServiceError) => { contentType: string; body: object };

const workspaceRefusal: RefusalAnswer = (_path, refusal) => ({
  contentType: 'application/json; charset=utf-8',
  body: refusal.toBody(),
});

export interface HttpServerOptions {
  /** Bodies declared longer than this get no `100 Continue`: the app answers 413 without reading them. */
  bodyLimitBytes?: number;
  /** How a refusal before routing is worded; the workspace API's error shape by default. */
  answerRefusal?: RefusalAnswer;
  timeouts?: Partial<typeof SERVER_TIMEOUTS>;
  connections?: Partial<ConnectionLimits>;
}

/**
 * Writes a last answer and destroys the connection once it is sent (or after
 * FAREWELL_MS, for a client that does not read). Ending alone is not enough:
 * it closes only our half, and a client that never closes its own would keep
 * the socket, and its file descriptor, for ever.
 */
function answerAndDestroy(
  socket: Socket,
  status: number,
  reason: string,
  { contentType, body }: ReturnType<RefusalAnswer>,
  headers: Record<string, string> = {},
): void {
  if (!socket.writable) return void socket.destroy();
  const text = JSON.stringify(body);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  setTimeout(() => socket.destroy(), FAREWELL_MS).unref();
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: ${contentType}\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nCache-Control: no-store\r\n${extra}Connection: close\r\n\r\n${text}`,
    () => socket.destroy(),
  );
}

/** The path of the request line at the start of what the parser refused, if it is there (a request sent in one piece). */
function pathOf(packet: Buffer | undefined): string | undefined {
  const line = packet?.toString('latin1', 0, Math.min(packet.length, 8192));
  return line ? /^[A-Z]+ ([^ ?\r\n]+)[^ \r\n]* HTTP\/1\.[01]\r?\n/.exec(line)?.[1] : undefined;
}

/**
 * What Node's HTTP parser refuses before any route sees the request (a
 * malformed or smuggling-prone request line or header, duplicate
 * Content-Length, headers over 16 KiB, a timeout) gets the contract's error
 * shape too, then the connection is closed.
 */
function answerClientError(answerRefusal: RefusalAnswer, error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Socket): void {
  const [status, reason, code, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? ([408, 'Request Timeout', 'request_timeout', 'The request was not received in time'] as const)
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? ([431, 'Request Header Fields Too Large', 'payload_too_large', 'Request headers are too large'] as const)
        : ([400, 'Bad Request', 'invalid_request', 'Invalid request: malformed HTTP'] as const);
  answerAndDestroy(socket, status, reason, answerRefusal(pathOf(error.rawPacket), new ServiceError(status, code, message)));
}

/**
 * Counts open connections, in all and per client, and turns away one past
 * either bound at once: a short 503 and the connection destroyed, before it
 * can hold a file descriptor or a request slot.
 */
function boundConnections(server: Server, limits: ConnectionLimits, answerRefusal: RefusalAnswer): void {
  const perClient = new Map<string, number>();
  let total = 0;
  server.on('connection', (socket: Socket) => {
    const client = clientKey(socket.remoteAddress ?? 'unknown');
    const fromClient = perClient.get(client) ?? 0;
    if (total >= limits.total || fromClient >= limits.perClient) {
      const which = total >= limits.total ? 'the service has' : 'this client has';
      // Refused before any request is read: no path says which protocol is spoken.
      const refusal = new ServiceError(
        503,
        'too_many_connections',
        `Too many connections: ${which} as many open as allowed; close some and retry`,
      );
      answerAndDestroy(socket, 503, 'Service Unavailable', answerRefusal(undefined, refusal), { 'Retry-After': '1' });
      return;
    }
    total += 1;
    perClient.set(client, fromClient + 1);
    socket.once('close', () => {
      total -= 1;
      const left = (perClient.get(client) ?? 1) - 1;
      if (left === 0) perClient.delete(client);
      else perClient.set(client, left);
    });
  });
}

/** HTTP/1.1 requires a Host header (RFC 9112, 3.2). */
function refuseWithoutHost(res: ServerResponse): void {
  const body = JSON.stringify(
    errorBody('invalid_request', 'Invalid request: an HTTP/1.1 request needs a Host header', undefined, { status: 400 }),
  );
  res.writeHead(400, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'close' }).end(body);
}

const declaredLength = (req: IncomingMessage) => Number(req.headers['content-length'] ?? 0);

/** The app on a Node HTTP server with the service's limits; `listen` is left to the caller. */
export function createHttpServer(
  app: Listener,
  { bodyLimitBytes, timeouts = {}, connections = {}, answerRefusal = workspaceRefusal }: HttpServerOptions = {},
): Server {
  const limits = { ...SERVER_TIMEOUTS, ...timeouts };
  // Bounded so that slow or idle clients cannot hold connections forever.
  const server = createServer(
    {
      headersTimeout: limits.headersMs,
      requestTimeout: limits.requestMs,
      keepAliveTimeout: limits.keepAliveMs,
      connectionsCheckingInterval: limits.checkIntervalMs,
      // Node's own refusal is an empty 400; this one is in the contract's shape.
      requireHostHeader: false,
    },
    (req, res) => (req.httpVersion === '1.1' && req.headers.host === undefined ? refuseWithoutHost(res) : app(req, res)),
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => answerClientError(answerRefusal, error, socket));
  boundConnections(server, { ...DEFAULT_CONNECTION_LIMITS, ...connections }, answerRefusal);
  // Node would send `100 Continue` to every `Expect: 100-continue` and so invite a body the app refuses.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
    if (bodyLimitBytes === undefined || !(declaredLength(req) > bodyLimitBytes)) res.writeContinue();
    server.emit('request', req, res);
  });
  return server;
}

export interface ServeOptions extends HttpServerOptions {
  /** Names the server in its log lines and messages, e.g. "workspace service". */
  name: string;
  host: string;
  port: number;
  logger: Logger;
  /** Extra fields for the "listening" log line. */
  details?: Record<string, unknown>;
  /** Runs at once on SIGTERM or SIGINT, e.g. to stop answering readiness probes with 200. */
  onStopping?: () => void;
  /**
   * How long to go on serving after SIGTERM before closing, so that a load balancer
   * sees readiness fail and sends requests elsewhere first (SHUTDOWN_DRAIN_SECONDS).
   */
  drainMs?: number;
  /** Runs after the last connection has closed, e.g. to close a database. */
  onClose?: () => Promise<void>;
}

export function serve(
  app: Listener,
  { name, host, port, logger, details, onStopping, drainMs = 0, onClose, ...limits }: ServeOptions,
): Server {
  const server = createHttpServer(app, limits);
  server.listen(port, host);

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
    onStopping?.();
    const close = () => {
      logger.info({ signal }, 'shutting down: finishing in-flight requests');
      server.close(() => {
        void (async () => {
          await onClose?.();
          logger.info('stopped');
          process.exit(0);
        })();
      });
      // Keep-alive connections with no request in flight would hold close() open.
      server.closeIdleConnections();
      setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
    };
    if (drainMs <= 0) return void close();
    logger.info({ signal, drain_ms: drainMs }, 'draining: not ready, still serving');
    setTimeout(close, drainMs);
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
  return server;
}
