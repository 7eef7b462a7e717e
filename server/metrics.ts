/**
 * Prometheus metrics (prom-client), on a listener of their own: METRICS_PORT,
 * on METRICS_HOST (127.0.0.1 unless set), never on the public port. Series are
 * labelled by the contract's operationId (`operation="updateUser"`).
 */
import { createServer, type Server } from 'node:http';
import type { RequestHandler } from 'express';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { OPERATIONS } from '../lib/contract/operations.js';
import { SCIM_BASE_PATH, SCIM_OPERATIONS } from '../lib/contract/scim-operations.js';
import type { Logger } from './logger.js';
import type { StoreStats } from './store/repositories.js';

export interface MetricSources {
  /** Password hashes running and waiting (server/password/hashing.ts). */
  hashing(): { active: number; pending: number };
  store(): StoreStats;
  /** When the oldest webhook delivery still waiting became due (store.webhooks.oldestPending). */
  oldestPendingDelivery?: () => Promise<string | undefined>;
}

/**
 * The operation of each method and path the contract declares, exactly as it
 * spells them. A request is labelled when it arrives, before the validator
 * runs, so that its refusals (400, 413, 415) count under their operation.
 */
const OPERATION_BY_ROUTE = new Map(
  OPERATIONS.map((operation) => [`${operation.method.toUpperCase()} ${operation.path}`, operation.operationId]),
);

/**
 * SCIM's operations, by method and route (`/scim/v2/Users/:id`), labelled
 * `scim` and their operationId (`scimPatchUser`, `scimListGroups`): apart
 * from the workspace API's operations of the same names.
 */
const SCIM_ROUTES = SCIM_OPERATIONS.map((operation) => ({
  method: operation.method.toUpperCase(),
  route: new RegExp(`^${operation.route.replace(/:\w+/g, '[^/]+')}$`),
  label: `scim${operation.operationId.charAt(0).toUpperCase()}${operation.operationId.slice(1)}`,
}));

/** The operation a request was routed to, as the contracts name it; `none` for a path neither describes. */
function operationOf(method: string, path: string): string {
  const workspace = OPERATION_BY_ROUTE.get(`${method} ${path}`);
  if (workspace) return workspace;
  if (!path.startsWith(`${SCIM_BASE_PATH}/`)) return 'none';
  return SCIM_ROUTES.find((candidate) => candidate.method === method && candidate.route.test(path))?.label ?? 'none';
}

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #requests: Counter<'operation' | 'status'>;
  readonly #duration: Histogram<'operation'>;
  readonly #credentialFailures: Counter;
  readonly #throttled: Counter;
  readonly #groupCommits: Histogram;
  readonly #events: Counter<'type'>;
  readonly #deliveries: Counter<'outcome'>;

  constructor(sources: MetricSources) {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.#requests = new Counter({
      name: 'workspace_requests_total',
      help: 'Requests answered, by operation and status.',
      labelNames: ['operation', 'status'],
      registers,
    });
    this.#duration = new Histogram({
      name: 'workspace_request_duration_seconds',
      help: 'Time from a request to the end of its answer, by operation.',
      labelNames: ['operation'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    });
    this.#credentialFailures = new Counter({
      name: 'workspace_credential_failures_total',
      help: 'Requests refused for an unknown key, a wrong secret, or an expired or revoked key (401).',
      registers,
    });
    this.#throttled = new Counter({
      name: 'workspace_throttled_requests_total',
      help: 'Requests refused because their client failed too many credential checks (429).',
      registers,
    });
    this.#groupCommits = new Histogram({
      name: 'workspace_group_commit_writes',
      help: 'Writes (user updates and creations) committed together in one transaction (SQLite group commit).',
      buckets: [1, 2, 4, 8, 16, 32, 64, 128],
      registers,
    });
    this.#events = new Counter({
      name: 'workspace_events_total',
      help: 'Change events dispatched to webhooks, by type (one instance dispatches each event; none while no webhook is enabled).',
      labelNames: ['type'],
      registers,
    });
    this.#deliveries = new Counter({
      name: 'workspace_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome: delivered (a 2xx), failed (to be tried again), given_up.',
      labelNames: ['outcome'],
      registers,
    });
    new Gauge({
      name: 'workspace_webhook_oldest_pending_seconds',
      help: 'How long the oldest webhook delivery still waiting has been due; 0 when none waits.',
      registers,
      async collect() {
        const oldest = await sources.oldestPendingDelivery?.();
        this.set(oldest === undefined ? 0 : Math.max(0, (Date.now() - Date.parse(oldest)) / 1000));
      },
    });
    new Gauge({
      name: 'workspace_password_hashes_in_flight',
      help: 'Password hashes (and verifications) running now.',
      registers,
      collect() {
        this.set(sources.hashing().active);
      },
    });
    new Gauge({
      name: 'workspace_password_hashes_queued',
      help: 'Password hashes waiting for a turn.',
      registers,
      collect() {
        this.set(sources.hashing().pending);
      },
    });
    new Gauge({
      name: 'workspace_db_pool_connections',
      help: "PostgreSQL's connection pool: connections open (total), idle, and requests waiting for one.",
      labelNames: ['state'],
      registers,
      collect() {
        const pool = sources.store().pool;
        if (!pool) return;
        for (const [state, value] of Object.entries(pool)) this.set({ state }, value);
      },
    });
  }

  /** Counts and times every request, labelled by its operation, or `none` for a path the contract does not have. */
  readonly middleware: RequestHandler = (req, res, next) => {
    const stop = this.#duration.startTimer();
    const operation = operationOf(req.method, req.path);
    res.once('finish', () => {
      stop({ operation });
      this.#requests.inc({ operation, status: String(res.statusCode) });
      if (res.statusCode === 401) this.#credentialFailures.inc();
      if (res.statusCode === 429) this.#throttled.inc();
    });
    next();
  };

  /** For the webhook delivery engine (webhooks/delivery-engine.ts). */
  readonly webhookObserver = {
    dispatched: (event: { type: string }) => this.#events.inc({ type: event.type }),
    attempted: (outcome: 'delivered' | 'failed' | 'given_up') => this.#deliveries.inc({ outcome }),
  };

  /** For the store's group commit (StoreOptions.onGroupCommit). */
  readonly observeGroupCommit = (writes: number) => this.#groupCommits.observe(writes);
}

/** The metrics listener: GET /metrics in Prometheus text format; anything else 404. */
export function serveMetrics(metrics: ServiceMetrics, { host, port, logger }: { host: string; port: number; logger: Logger }): Server {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || req.url !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found: metrics are at GET /metrics\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' }).end(text),
      (error: unknown) => {
        logger.error({ err: error }, 'collecting metrics failed');
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Collecting metrics failed\n');
      },
    );
  });
  server.on('error', (error: NodeJS.ErrnoException) => {
    const reason = error.code === 'EADDRINUSE' ? `port ${port} on ${host} is already in use (set METRICS_PORT)` : error.message;
    process.stderr.write(`metrics: cannot listen: ${reason}\n`);
    process.exit(1);
  });
  server.listen(port, host, () => logger.info({ url: `http://${host}:${port}/metrics` }, 'metrics listening'));
  return server;
}
