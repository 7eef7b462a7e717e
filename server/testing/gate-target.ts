/**
 * The contract gate's self-check (gate/gate.system.test.ts): the real app in
 * the test's process on a fresh database (SQLite, or PostgreSQL under
 * scripts/with-postgres.ts), composed from the service's parts with what only
 * an app in process allows: injected faults, broken handlers, a trusted
 * X-Forwarded-For, a count of the rows written (store/testing/row-changes.ts). `npm run contract` itself never loads
 * it; it checks deployments (gate/local-deployment.ts).
 */
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { type Fault, type FaultSite, type GateTarget, type Provisioner } from '../../gate/target.js';
import { BODY_LIMIT_BYTES, PERMISSIONS } from '../../lib/contract/operations.js';
import type { ScimOperationId } from '../../lib/contract/scim-operations.js';
import { createApp } from '../app.js';
import { issueApiKey } from '../keys/api-keys.js';
import { createHandlers } from '../handlers/index.js';
import type { Handlers, JsonOperationId } from '../handlers/types.js';
import { createHttpServer } from '../http/lifecycle.js';
import { createLogger } from '../logger.js';
import { StoreUnavailableError } from '../store/faults.js';
import { openInspectedStore } from '../store/testing/open-test-store.js';
import { TABLE_KEY_COLUMNS, type TableName } from '../store/testing/inspection.js';
import { watchRowChanges } from '../store/testing/row-changes.js';
import type { Store } from '../store/repositories.js';
import { appRoutes } from './app-routes.js';
import { createTestDatabase } from './database.js';
import { TEST_SETUP } from './test-setup.js';
import { contractValidation } from '../http/contract-validation.js';
import { scimContractValidation } from '../scim/contract.js';
import { createScimHandlers } from '../scim/routes.js';
import type { ScimHandlers, ScimRequest } from '../scim/types.js';

export interface OwnTargetOptions {
  /** Replaces handlers with broken ones: the self-test's deliberately wrong variants. */
  breakHandlers?: (handlers: Handlers) => Handlers;
  /** The server's own response validation; on unless a self-test turns it off. */
  validateResponses?: boolean;
}

/** The real app in this process, on a fresh database (SQLite, or PostgreSQL under scripts/with-postgres.ts). */
export async function startOwnTarget(options: OwnTargetOptions = {}): Promise<GateTarget> {
  const database = await createTestDatabase();
  const { store, inspection } = await openInspectedStore(database.url);
  // Every write to what the directory holds: a rejected request must make none. But a key's
  // last use and a console session's, which a request notes whether or not it is refused
  // (keys/last-use.ts), and the idempotency records, which keep a refusal for its retries.
  const rowChanges = await watchRowChanges(
    inspection,
    (Object.keys(TABLE_KEY_COLUMNS) as TableName[]).filter((table) => table !== 'idempotency_keys'),
    ['last_used', 'last_seen'],
  );
  const armed = new Map<FaultSite, Fault>();
  const take = (site: FaultSite, fault: Fault) => {
    const hit = armed.get(site) === fault;
    if (hit) armed.delete(site);
    return hit;
  };
  const holds = new Map<FaultSite, { arrive: () => void; released: Promise<void> }>();
  const hold = (site: FaultSite) => {
    let arrive = () => {};
    let release = () => {};
    const arrived = new Promise<void>((resolve) => (arrive = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    holds.set(site, { arrive, released });
    return { arrived, release };
  };
  /** Waits while `site`'s call is held, if one was asked for. */
  const waitIfHeld = async (site: FaultSite) => {
    const held = holds.get(site);
    if (!held) return;
    holds.delete(site);
    held.arrive();
    await held.released;
  };
  /** Throws the armed fault of `site`, if any: a bug, or a database that does not answer. */
  const injectArmed = (site: FaultSite) => {
    if (take(site, 'internal')) throw new Error('injected fault: a bug in the handler');
    if (take(site, 'unavailable')) {
      throw new StoreUnavailableError('unreachable', { cause: new Error('injected fault: the database does not answer') });
    }
  };

  // The store, but for a readiness check that fails when armed.
  const faultyStore: Store = {
    ...store,
    async unreadyBecause(withinMs) {
      return take('getReadiness', 'unavailable') ? 'injected fault: the database does not answer' : store.unreadyBecause(withinMs);
    },
  };
  const real = createHandlers({ store: faultyStore });
  const chosen = options.breakHandlers ? options.breakHandlers(real) : real;
  const handlers = Object.fromEntries(
    Object.entries(chosen).map(([operationId, handler]) => [
      operationId,
      async (body: never, context: never) => {
        await waitIfHeld(operationId as JsonOperationId);
        // The readiness check's 503 comes from the store above, not from a thrown error.
        if (operationId !== 'getReadiness') injectArmed(operationId as JsonOperationId);
        else if (take('getReadiness', 'internal')) throw new Error('injected fault: a bug in the handler');
        return (handler as (body: never, context: never) => Promise<unknown>)(body, context);
      },
    ]),
  ) as unknown as Handlers;

  const scimHandlers = Object.fromEntries(
    Object.entries(createScimHandlers(faultyStore)).map(([operationId, handler]) => [
      operationId,
      async (request: ScimRequest) => {
        await waitIfHeld(`SCIM ${operationId as ScimOperationId}`);
        injectArmed(`SCIM ${operationId as ScimOperationId}`);
        return handler(request);
      },
    ]),
  ) as ScimHandlers;

  let logText = '';
  const app = createApp({
    store: faultyStore,
    handlers,
    // Every line, at info: the hostile corpus looks in all of them for the secrets it sent.
    logger: createLogger(
      'info',
      new Writable({
        write(chunk, _encoding, done) {
          logText += chunk;
          done();
        },
      }),
    ),
    validation: contractValidation({ responses: options.validateResponses ?? true }),
    scimHandlers,
    scimValidation: scimContractValidation({ responses: options.validateResponses ?? true }),
    // The production throttle, but believing X-Forwarded-For from loopback:
    // the gate trips it for made-up addresses and never for its own.
    authThrottle: { maxFailures: 10, windowSeconds: 300 },
    trustProxy: 'loopback',
  });
  // The HTTP server main.ts runs: its limits, and its answers to malformed HTTP.
  const server = createHttpServer(app, { bodyLimitBytes: BODY_LIMIT_BYTES }).listen(0, '127.0.0.1');
  await once(server, 'listening');

  const provisioner: Provisioner = {
    async createKey(permissions) {
      const issued = issueApiKey('contract gate', permissions, null);
      await store.apiKeys.insert(issued.record, TEST_SETUP);
      return { api_key: issued.record.api_key, api_key_secret: issued.secret };
    },
    async revokeKey(apiKey) {
      await store.apiKeys.revoke(apiKey, new Date().toISOString(), TEST_SETUP);
    },
    createGroup: (name) => store.groups.create({ group_id: randomBytes(16).toString('hex'), name }, TEST_SETUP),
    async deleteGroup(groupId) {
      await store.groups.delete(groupId, TEST_SETUP);
    },
  };

  return {
    description: `the app in process on a temporary ${database.url.startsWith('postgres') ? 'PostgreSQL' : 'SQLite'} database, response validation ${options.validateResponses === false ? 'off' : 'on'}`,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    admin: await provisioner.createKey([...PERMISSIONS]),
    provisioner,
    faults: { arm: (site, fault) => armed.set(site, fault), hold },
    trustsForwardedFor: true,
    routes: () => appRoutes(app),
    snapshot: async () => `rows written: ${await rowChanges.count()}`,
    logs: () => logText,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await store.close();
      await database.drop();
    },
  };
}
