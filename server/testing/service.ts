/**
 * Starts the real workspace app in-process on a random port, over a fresh
 * database (SQLite, or PostgreSQL under scripts/with-postgres.ts), with
 * response validation on and the log captured in memory.
 * Each call gets its own database: tests share no mutable fixtures.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { BODY_LIMIT_BYTES, PERMISSIONS, type Permission } from '../../lib/contract/operations.js';
import { createApp, refusalInItsProtocol } from '../app.js';
import { issueApiKey } from '../keys/api-keys.js';
import type { AuthThrottleConfig } from '../config.js';
import { createHttpServer } from '../http/lifecycle.js';
import { ServiceMetrics } from '../metrics.js';
import { hashingLoad } from '../password/hashing.js';
import { createLogger } from '../logger.js';
import { openInspectedStore } from '../store/testing/open-test-store.js';
import type { StoreInspection } from '../store/testing/inspection.js';
import type { Group, User } from '../store/records.js';
import { createDirectory, type NewGroup, type WebhookDirectoryOptions } from '../directory/index.js';
import { aGroup } from './factories.js';
import { TEST_SETUP } from './test-setup.js';
import type { Store } from '../store/repositories.js';
import type { DatabaseTimeouts } from '../store/timeouts.js';
import { createTestDatabase } from './database.js';
import type { Credentials } from '../../lib/contract/credentials.js';
import { createHandlers } from '../handlers/index.js';
import { contractValidation } from '../http/contract-validation.js';
import { scimContractValidation } from '../scim/contract.js';
import { createScimHandlers } from '../scim/routes.js';
import type { components, OperationName, Params, SnakeCase } from '../../client/index.js';

type NewUser = components['schemas']['NewUser'];

/** The operations by the name their path gives them: `update_user` → `updateUser`. */
type ByPathName = { [Op in OperationName as SnakeCase<Op>]: Op };
/** An operation of the public API as its path names it (`update_user`). */
export type PathName = keyof ByPathName;
/** What an operation's body holds besides the credentials, as the contract types it. */
export type Fields<Name extends PathName> = Omit<Params<ByPathName[Name]>, keyof Credentials>;

/** An operation whose body needs nothing but credentials may be called without fields. */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- `{}` extends Fields exactly when Fields has no required key.
type FieldsArgument<Name extends PathName> = {} extends Fields<Name> ? [fields?: Fields<Name>] : [fields: Fields<Name>];

export interface Answer {
  status: number;
  headers: Headers;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: any;
  text: string;
}

export interface TestServiceOptions {
  authThrottle?: AuthThrottleConfig;
  /** Serve this existing database instead of a fresh one (which close() then leaves in place). */
  databaseUrl?: string;
  /** Replace the store the app sees, e.g. with one that fails. */
  wrapStore?: (store: Store) => Store;
  /** GET_USERS_MAX: the most users get_users lists at once. */
  getUsersMax?: number;
  /** How webhooks' addresses are checked (a resolver of the test's own, WEBHOOK_ALLOW_PRIVATE). */
  webhooks?: WebhookDirectoryOptions;
  /** Count and time requests (TestService.metrics), as with METRICS_PORT set. */
  metrics?: boolean;
  /** The web origins whose pages may call the service (CORS_ORIGINS). */
  corsOrigins?: string[];
  /** Which proxies may say how the request came (TRUST_PROXY): `loopback` to test answers over TLS by X-Forwarded-Proto. */
  trustProxy?: string;
  /** How long to wait on the database before answering 503 (DATABASE_*_TIMEOUT_MS). */
  databaseTimeouts?: Partial<DatabaseTimeouts>;
}

export interface TestService {
  baseUrl: string;
  store: Store;
  /** The service's database row by row: what was stored beyond what the API shows. */
  inspection: StoreInspection;
  /** Present when started with `metrics: true`. */
  metrics: ServiceMetrics | undefined;
  databaseUrl: string;
  /** A key with every permission. */
  admin: Credentials;
  /** Everything the service logged so far, as text. */
  logs(): string;
  /** POSTs a body the contract types (its credentials included) to /api/public/<operation>. */
  call<Name extends PathName>(operation: Name, body: Params<ByPathName[Name]>): Promise<Answer>;
  /** POSTs `body`, whatever it is, as JSON to /api/public/<operation>: for requests the contract refuses or tolerates. */
  send(operation: string, body: unknown): Promise<Answer>;
  /** POSTs a body the contract types, with the admin credentials merged into `fields`. */
  callAsAdmin<Name extends PathName>(operation: Name, ...fields: FieldsArgument<Name>): Promise<Answer>;
  /** POSTs `fields`, whatever they are, with the admin credentials: for shapes the contract refuses or tolerates. */
  sendAsAdmin(operation: string, fields?: Record<string, unknown>): Promise<Answer>;
  request(path: string, init?: RequestInit): Promise<Answer>;
  createKey(options?: { permissions?: Permission[]; expires?: Date }): Promise<Credentials>;
  /** A user with a fresh username and `fields`, created through the API. */
  createUser(fields?: Partial<NewUser>): Promise<User>;
  /** A group with a fresh name and `fields`, made through the directory as the test's setup (factories.ts). */
  createGroup(fields?: Partial<NewGroup>): Promise<Group>;
  close(): Promise<void>;
}

let usernames = 0;

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const database = options.databaseUrl ? undefined : await createTestDatabase();
  const databaseUrl = options.databaseUrl ?? database!.url;
  const opened: { store?: Store } = {};
  const metrics = options.metrics ? new ServiceMetrics({ hashing: hashingLoad, store: () => opened.store?.stats() ?? {} }) : undefined;
  const { store, inspection } = await openInspectedStore(databaseUrl, {
    ...(options.databaseTimeouts ? { timeouts: options.databaseTimeouts } : {}),
    ...(metrics ? { onGroupCommit: metrics.observeGroupCommit } : {}),
  });
  opened.store = store;
  let logText = '';
  const logSink = new Writable({
    write(chunk, _encoding, done) {
      logText += chunk.toString();
      done();
    },
  });
  const served = options.wrapStore ? options.wrapStore(store) : store;
  const app = createApp({
    store: served,
    handlers: createHandlers({
      store: served,
      ...(options.getUsersMax ? { getUsersMax: options.getUsersMax } : {}),
      ...(options.webhooks ? { webhooks: options.webhooks } : {}),
    }),
    validation: contractValidation({ responses: true }),
    scimHandlers: createScimHandlers(served),
    scimValidation: scimContractValidation({ responses: true }),
    logger: createLogger('info', logSink),
    authThrottle: options.authThrottle ?? { maxFailures: 1_000, windowSeconds: 60 },
    ...(options.corsOrigins ? { corsOrigins: options.corsOrigins } : {}),
    ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
    ...(metrics ? { metrics } : {}),
  });
  // The server main.ts runs, with its timeouts and its answers to malformed HTTP.
  const server = createHttpServer(app, { bodyLimitBytes: BODY_LIMIT_BYTES, answerRefusal: refusalInItsProtocol }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function request(path: string, init?: RequestInit): Promise<Answer> {
    const response = await fetch(`${baseUrl}${path}`, init);
    const text = await response.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // Not JSON: tests that expect JSON fail on `body` being a string.
    }
    return { status: response.status, headers: response.headers, body, text };
  }

  const send = (operation: string, body: unknown) =>
    request(`/api/public/${operation}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

  async function createKey({ permissions = [...PERMISSIONS], expires }: { permissions?: Permission[]; expires?: Date } = {}) {
    const issued = issueApiKey('test key', permissions, expires ?? null);
    await store.apiKeys.insert(issued.record, TEST_SETUP);
    return { api_key: issued.record.api_key, api_key_secret: issued.secret };
  }

  async function close() {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await store.close();
    await database?.drop();
  }

  // A service that cannot take its first key (a disk full already) closes before the error is
  // told: a store left open would keep the test's process, and its disk, busy.
  const admin = await createKey().catch(async (error: unknown) => {
    await close();
    throw error;
  });
  const call = <Name extends PathName>(operation: Name, body: Params<ByPathName[Name]>) => send(operation, body);
  const sendAsAdmin = (operation: string, fields: Record<string, unknown> = {}) => send(operation, { ...admin, ...fields });
  const callAsAdmin = <Name extends PathName>(operation: Name, ...[fields]: FieldsArgument<Name>) =>
    send(operation, { ...admin, ...fields });

  return {
    baseUrl,
    store,
    inspection,
    metrics,
    databaseUrl,
    admin,
    logs: () => logText,
    call,
    send,
    callAsAdmin,
    sendAsAdmin,
    request,
    createKey,
    async createUser(fields = {}) {
      const answer = await callAsAdmin('create_user', { target_user: { username: `user${++usernames}@example.com`, ...fields } });
      if (answer.status !== 200) throw new Error(`create_user failed: ${answer.status} ${answer.text}`);
      return answer.body.user as User;
    },
    createGroup: (fields = {}) => aGroup(createDirectory(store), fields),
    close,
  };
}
