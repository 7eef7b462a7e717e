/**
 * What the gate checks: either a service of its own (the real app on a
 * temporary database, response validation on) or a deployment reached by URL.
 *
 * Both answer HTTP the same way; they differ in what else the gate may do.
 * Its own service lets it inject faults (for the declared 500 and 503), trust
 * X-Forwarded-For (to trip the failed-credential throttle for a made-up address
 * rather than its own) and fingerprint the database directly. A deployment
 * gets keys and groups only through the admin CLI, and only when the gate is
 * given its DATABASE_URL.
 */
import { createHash, randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { BODY_LIMIT_BYTES, createApp } from '../../server/app.js';
import { issueApiKey } from '../../server/auth/api-keys.js';
import { PERMISSIONS, type OperationId, type Permission } from '../../server/contract.js';
import { createHandlers } from '../../server/handlers/index.js';
import type { Handlers, JsonOperationId } from '../../server/handlers/types.js';
import { createHttpServer } from '../../server/http/lifecycle.js';
import { createLogger } from '../../server/logger.js';
import { openStore } from '../../server/store/open-store.js';
import type { Group } from '../../server/store/records.js';
import { inspectStore } from '../../server/store/inspection.js';
import type { Store } from '../../server/store/repositories.js';
import { createTestDatabase } from '../../server/testing/database.js';
import { runScript } from '../../server/testing/run.js';
import { postJson } from './http.js';
import { appRoutes } from './routes.js';

export interface Credentials {
  api_key: string;
  api_key_secret: string;
}

/** Creates what the public API cannot: keys and groups. */
export interface Provisioner {
  createKey(permissions: Permission[]): Promise<Credentials>;
  revokeKey(apiKey: string): Promise<void>;
  createGroup(name: string): Promise<Group>;
  deleteGroup(groupId: string): Promise<void>;
}

export type Fault = 'internal' | 'unavailable';

/** Makes the next call of one operation fail the way a broken database or a bug would. */
export interface FaultSwitch {
  arm(operationId: OperationId, fault: Fault): void;
}

export interface GateTarget {
  /** One line for the report: what was checked. */
  description: string;
  baseUrl: string;
  /** A key with every permission. */
  admin: Credentials;
  provisioner: Provisioner | undefined;
  faults: FaultSwitch | undefined;
  /** Whether the service believes X-Forwarded-For from the gate, so the throttle can be tripped for a made-up address. */
  trustsForwardedFor: boolean;
  /** The app's routing table as `method path`, when the gate runs the app itself. */
  routes?: () => string[];
  /** A digest of everything stored that the gate can see; equal digests mean nothing changed. */
  snapshot(): Promise<string>;
  /** The service's log, when the gate runs it (to show with a failure). */
  logs(): string;
  close(): Promise<void>;
}

const digest = (value: unknown) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

export interface OwnTargetOptions {
  /** Replaces handlers with broken ones: the self-test's deliberately wrong variants. */
  breakHandlers?: (handlers: Handlers) => Handlers;
  /** The server's own response validation; on unless a self-test turns it off. */
  validateResponses?: boolean;
}

/** The real app in this process, on a fresh database (SQLite, or PostgreSQL under scripts/with-postgres.ts). */
export async function startOwnTarget(options: OwnTargetOptions = {}): Promise<GateTarget> {
  const database = await createTestDatabase();
  const store = await openStore(database.url);
  const armed = new Map<OperationId, Fault>();
  const take = (operationId: OperationId, fault: Fault) => {
    const hit = armed.get(operationId) === fault;
    if (hit) armed.delete(operationId);
    return hit;
  };

  // The store, but for a ping that fails when armed.
  const faultyStore: Store = {
    ...store,
    async ping() {
      if (take('getHealth', 'unavailable')) throw new Error('injected fault: the database does not answer');
      return store.ping();
    },
  };
  const real = createHandlers({ store: faultyStore });
  const chosen = options.breakHandlers ? options.breakHandlers(real) : real;
  const handlers = Object.fromEntries(
    Object.entries(chosen).map(([operationId, handler]) => [
      operationId,
      async (body: never, context: never) => {
        if (take(operationId as JsonOperationId, 'internal')) throw new Error('injected fault: a bug in the handler');
        return (handler as (body: never, context: never) => Promise<unknown>)(body, context);
      },
    ]),
  ) as unknown as Handlers;

  let logText = '';
  const app = createApp({
    store: faultyStore,
    handlers,
    // Every line, at info: the hostile corpus looks in all of them for the secrets it sent.
    logger: createLogger('info', new Writable({ write: (chunk, _encoding, done) => ((logText += chunk), done()) })),
    validateResponses: options.validateResponses ?? true,
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
      await store.apiKeys.insert(issued.record);
      return { api_key: issued.record.api_key, api_key_secret: issued.secret };
    },
    async revokeKey(apiKey) {
      await store.apiKeys.revoke(apiKey, new Date().toISOString());
    },
    createGroup: (name) => store.groups.create({ group_id: randomBytes(16).toString('hex'), name }),
    async deleteGroup(groupId) {
      await store.groups.delete(groupId);
    },
  };

  return {
    description: `its own service on a temporary ${database.url.startsWith('postgres') ? 'PostgreSQL' : 'SQLite'} database, response validation ${options.validateResponses === false ? 'off' : 'on'}`,
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    admin: await provisioner.createKey([...PERMISSIONS]),
    provisioner,
    faults: { arm: (operationId, fault) => armed.set(operationId, fault) },
    trustsForwardedFor: true,
    routes: () => appRoutes(app),
    async snapshot() {
      // Every row of every table, hashes and all: a rejected request must change none.
      const inspection = inspectStore(store);
      return digest(await Promise.all((['users', 'groups', 'user_groups', 'api_keys'] as const).map((table) => inspection.rows(table))));
    },
    logs: () => logText,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await store.close();
      await database.drop();
    },
  };
}

export interface DeploymentOptions {
  baseUrl: string;
  admin: Credentials;
  /** The deployment's database, for the admin CLI; without it, what needs a new key or group is not checked. */
  databaseUrl?: string;
}

/** The admin CLI, run against the deployment's database. */
function adminCliProvisioner(databaseUrl: string): Provisioner {
  const admin = async (...args: string[]) => {
    const run = await runScript('server/admin/cli.ts', args, { DATABASE_URL: databaseUrl });
    if (run.code !== 0) throw new Error(`npm run admin -- ${args[0]} failed: ${run.stderr.trim()}`);
    return JSON.parse(run.stdout);
  };
  return {
    async createKey(permissions) {
      const key = await admin('create-key', '--name', 'contract gate', '--permissions', permissions.length ? permissions.join(',') : 'none');
      return { api_key: key.api_key, api_key_secret: key.api_key_secret };
    },
    // `--`: ids issued before keys stopped starting with `-` would read as options.
    revokeKey: async (apiKey) => void (await admin('revoke-key', '--', apiKey)),
    createGroup: (name) => admin('create-group', '--name', name),
    deleteGroup: async (groupId) => void (await admin('delete-group', groupId)),
  };
}

/** A running deployment: the gate sees only what the API shows. */
export async function connectDeployment({ baseUrl, admin, databaseUrl }: DeploymentOptions): Promise<GateTarget> {
  const url = baseUrl.replace(/\/+$/, '');
  const checked = await postJson(url, '/api/public/validate_credentials', admin);
  if (checked.status === 429) {
    throw new Error(`${url} is throttling this address after failed credential checks (each run of the gate makes 9); wait ${checked.headers.get('retry-after') ?? 'a few'} seconds`);
  }
  if (checked.status !== 200) throw new Error(`the key in WORKSPACE_API_KEY does not work at ${url}: ${checked.status} ${checked.text.slice(0, 200)}`);
  const missing = PERMISSIONS.filter((permission) => !(checked.body as { permissions: string[] }).permissions.includes(permission));
  if (missing.length > 0) throw new Error(`the key in WORKSPACE_API_KEY lacks ${missing.join(', ')}; the gate needs every permission`);

  const call = async (operation: string, fields: Record<string, unknown>) => {
    const answer = await postJson(url, `/api/public/${operation}`, { ...admin, ...fields });
    if (answer.status !== 200) throw new Error(`${operation} failed while taking a snapshot: ${answer.status}`);
    return answer.body as Record<string, any>;
  };
  return {
    description: `the deployment at ${url}${databaseUrl ? ', with its database for the admin CLI' : ''}`,
    baseUrl: url,
    admin,
    provisioner: databaseUrl ? adminCliProvisioner(databaseUrl) : undefined,
    faults: undefined,
    trustsForwardedFor: false,
    async snapshot() {
      const users: unknown[] = [];
      let cursor: string | null | undefined;
      do {
        const answer = await call('get_users', { ...(cursor ? { cursor } : { sort_by: 'created' }), page_size: 500 });
        users.push(...answer.users);
        cursor = answer.next_cursor;
      } while (cursor);
      return digest([users, (await call('get_groups', {})).groups]);
    },
    logs: () => '',
    async close() {},
  };
}
