import { OPERATIONS, WORKSPACE_DOCUMENT } from '../../lib/contract/operations.js';
import { SCIM_BASE_PATH } from '../../lib/contract/scim-operations.js';
import { present } from '../../lib/present.js';
import { createDirectory, type DirectoryOptions } from '../directory/index.js';
import { notReady } from '../readiness.js';
import type { Store } from '../store/repositories.js';
import { answeringRefusals } from './directory-errors.js';
import { attributeHandlers } from './attributes.js';
import { auditHandlers } from './audit.js';
import { eventHandlers } from './events.js';
import { keyHandlers } from './keys.js';
import { sessionHandlers } from './sessions.js';
import { webhookHandlers } from './webhooks.js';
import { groupHandlers } from './groups.js';
import type { Handlers, Services } from './types.js';
import { userHandlers } from './users.js';

const pathOf = (operationId: string) =>
  present(
    OPERATIONS.find((operation) => operation.operationId === operationId),
    operationId,
  ).path;

/** GET /: the contract's name and version, and its pages, each where the contract puts it. */
const info = WORKSPACE_DOCUMENT.info as { title: string; version: string };
const SERVICE_INDEX = {
  name: info.title,
  version: info.version,
  links: {
    api_reference: pathOf('getApiReference'),
    openapi: pathOf('getOpenApiDocument'),
    health: pathOf('getHealth'),
    readiness: pathOf('getReadiness'),
    scim: SCIM_BASE_PATH,
  },
};

/** How long GET /readyz waits for the database before it answers "not ready". */
export const READINESS_CHECK_MS = 1_000;

/** The handlers of the service over a store: each door's own directory over it. */
export function createHandlers({
  store,
  eventRetentionDays,
  passwordHistory,
  webhooks,
  ...options
}: { store: Store } & DirectoryOptions & Omit<Services, 'directory' | 'databaseUnreadyBecause'>): Handlers {
  const directory = createDirectory(store, {
    ...(eventRetentionDays === undefined ? {} : { eventRetentionDays }),
    ...(passwordHistory === undefined ? {} : { passwordHistory }),
    ...(webhooks === undefined ? {} : { webhooks }),
  });
  return handlersOver({ ...options, directory, databaseUnreadyBecause: (withinMs) => store.unreadyBecause(withinMs) });
}

function handlersOver(services: Services): Handlers {
  const handlers: Handlers = {
    async validateCredentials(_body, { key }) {
      // The route has authenticated the key already; describe it, never its secret.
      if (!key) throw new Error('validateCredentials reached without a key');
      return { api_key: key.api_key, name: key.name, permissions: key.permissions, expires: key.expires };
    },
    // Liveness: the process answers. It never waits on the database, so that a database
    // outage cannot get the service restarted, which would not mend the database.
    async getServiceIndex() {
      return SERVICE_INDEX;
    },
    async getHealth() {
      return { status: 'ok' };
    },
    async getReadiness() {
      const reason = services.readiness?.notReadyBecause ?? (await services.databaseUnreadyBecause(READINESS_CHECK_MS));
      if (reason) throw notReady(reason);
      return { status: 'ready' };
    },
    async getOpenApiDocument() {
      return WORKSPACE_DOCUMENT as Awaited<ReturnType<Handlers['getOpenApiDocument']>>;
    },
    ...userHandlers(services),
    ...groupHandlers(services),
    ...attributeHandlers(services),
    ...auditHandlers(services),
    ...eventHandlers(services),
    ...webhookHandlers(services),
    ...keyHandlers(services),
    ...sessionHandlers(),
  };
  // Every handler's directory refusals answered as this API's errors (directory-errors.ts).
  // (A mapped type over every operation: the entries lose each one's own types, which the wrapper keeps.)
  return Object.fromEntries(
    Object.entries(handlers).map(([operationId, handler]) => [
      operationId,
      answeringRefusals(handler as (...args: unknown[]) => Promise<unknown>),
    ]),
  ) as unknown as Handlers;
}
