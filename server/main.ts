/**
 * Starts the workspace service: `npm start`. Opens the database (applying
 * migrations), creates a first key on an empty one, and serves until SIGTERM
 * or SIGINT, closing the database after the last request.
 */

import { once } from 'node:events';
import { BODY_LIMIT_BYTES } from '../lib/contract/operations.js';
import { createApp, refusalInItsProtocol } from './app.js';
import { createFirstApiKey, FirstKeyError, handOverFirstKey } from './keys/first-key.js';
import { ConfigError, loadConfig } from './config.js';
import { explain } from './service-errors.js';
import { type Listener, serve } from './http/lifecycle.js';
import { whileStarting } from './http/starting.js';
import { Readiness } from './readiness.js';
import { ServiceMetrics, serveMetrics } from './metrics.js';
import { hashingLoad } from './password/hashing.js';
import type { Store } from './store/repositories.js';
import { type AuditRetention, startAuditRetention } from './audit-retention.js';
import { createLogger } from './logger.js';
import { openStore, StoreOpenError } from './store/open-store.js';
import { createHandlers } from './handlers/index.js';
import { type DeliveryEngine, deliveryEngine } from './webhooks/delivery-engine.js';
import { httpSender } from './webhooks/send.js';
import { contractValidation } from './http/contract-validation.js';
import { scimContractValidation } from './scim/contract.js';
import { createScimHandlers } from './scim/routes.js';
import { leaveUnlessSupportedNode } from '../lib/supported-node.js';
import { applyHeapSettings } from './heap.js';

// First, before anything can fail on a Node this does not run on.
leaveUnlessSupportedNode((code) => process.exit(code));
// Before the load that would grow the heap (heap.ts).
const heapFlags = applyHeapSettings();

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const readiness = new Readiness();
  const background: { retention?: AuditRetention; deliveries?: DeliveryEngine } = {};

  // Listening comes first, so that while the database migrates the probes can say
  // "alive, not ready"; other requests wait for the app (http/starting.ts).
  let startApp!: (app: Listener) => void;
  const appReady = new Promise<Listener>((resolve) => (startApp = resolve));
  let current: Listener = whileStarting(readiness, appReady);
  const opened: { store?: Store } = {};
  const metrics = config.metrics
    ? new ServiceMetrics({
        hashing: hashingLoad,
        store: () => opened.store?.stats() ?? {},
        oldestPendingDelivery: async () => opened.store?.webhooks.oldestPending(),
      })
    : undefined;
  const opening = openStore(config.databaseUrl, {
    timeouts: config.databaseTimeouts,
    poolSize: config.databasePoolSize,
    ...(metrics ? { onGroupCommit: metrics.observeGroupCommit } : {}),
  });
  const metricsServer = metrics && config.metrics ? serveMetrics(metrics, { ...config.metrics, logger }) : undefined;
  const server = serve((req, res) => current(req, res), {
    name: 'workspace service',
    bodyLimitBytes: BODY_LIMIT_BYTES,
    answerRefusal: refusalInItsProtocol,
    host: config.host,
    port: config.port,
    connections: config.connections,
    logger,
    details: { database: config.databaseUrl.split(':')[0] },
    onStopping: () => {
      readiness.stopping();
      background.retention?.stop();
    },
    drainMs: config.shutdownDrainMs,
    onClose: async () => {
      metricsServer?.close();
      await background.deliveries?.stop();
      await (await opening.catch(() => undefined))?.close();
    },
  });

  // What the delivery engine yields a busy event loop to: the requests received, and the turns of
  // the loop they came in (an overloaded loop finds many waiting at each turn).
  let requestsReceived = 0;
  let turnsWithRequests = 0;
  let turnCounted = false;
  server.on('request', () => {
    requestsReceived++;
    if (turnCounted) return;
    turnCounted = true;
    turnsWithRequests++;
    setImmediate(() => (turnCounted = false));
  });

  const store = await opening;
  opened.store = store;
  const refused = await store.users.listUsernameReports();
  if (refused.length > 0) {
    logger.warn(
      { users: refused.length },
      'some stored usernames break the username profile and were kept as they were; list them with: npm run admin -- username-report',
    );
  }
  await createFirstApiKey(store, (issued) => handOverFirstKey(issued, { terminal: process.stdout, file: config.firstKeyFile, logger }));

  const app = createApp({
    store,
    handlers: createHandlers({
      store,
      getUsersMax: config.getUsersMax,
      readiness,
      eventRetentionDays: config.eventRetentionDays,
      passwordHistory: config.passwordHistory,
      webhooks: { allowPrivate: config.webhooks.allowPrivate },
    }),
    validation: contractValidation({ responses: config.validateResponses }),
    scimHandlers: createScimHandlers(store, { passwordHistory: config.passwordHistory }),
    scimValidation: scimContractValidation({ responses: config.validateResponses }),
    logger,
    authThrottle: config.authThrottle,
    trustProxy: config.trustProxy,
    corsOrigins: config.corsOrigins,
    idempotencyKeyMs: config.idempotencyKeyMs,
    sessionTimeouts: config.sessionTimeouts,
    ...(metrics ? { metrics } : {}),
  });
  current = app;
  startApp(app);
  readiness.ready();
  background.retention = startAuditRetention(store, { days: config.auditRetentionDays, logger });
  if (config.webhooks.allowPrivate) {
    logger.warn('WEBHOOK_ALLOW_PRIVATE is on: webhooks may deliver to loopback and private addresses; for development and tests only');
  }
  background.deliveries = deliveryEngine({
    store,
    send: httpSender({ allowPrivate: config.webhooks.allowPrivate }),
    logger,
    schedule: config.webhooks.retrySchedule,
    disableAfterMs: config.webhooks.disableAfterMs,
    ...(metrics ? { observe: metrics.webhookObserver } : {}),
    requestsReceived: () => requestsReceived,
    turnsWithRequests: () => turnsWithRequests,
  });
  background.deliveries.start();
  if (!server.listening) await once(server, 'listening');
  const bound = server.address();
  logger.info(
    {
      url: `http://${config.host}:${typeof bound === 'object' && bound ? bound.port : config.port}`,
      heapFlags,
      ...(config.corsOrigins.length > 0 ? { corsOrigins: config.corsOrigins } : {}),
    },
    'workspace service ready',
  );
}

main().catch((error: unknown) => {
  // One line naming the cause (a bad setting, EACCES, EROFS, ENOSPC …); a stack only for what nobody foresaw.
  const expected = error instanceof ConfigError || error instanceof StoreOpenError || error instanceof FirstKeyError;
  process.stderr.write(
    `workspace-user-api: cannot start: ${expected ? explain(error) : String((error as Error | undefined)?.stack ?? error)}\n`,
  );
  process.exit(1);
});
