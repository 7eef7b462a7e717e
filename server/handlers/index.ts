import { WORKSPACE_DOCUMENT } from '../../lib/contract/operations.js';
import { ServiceError } from '../service-errors.js';
import { auditHandlers } from './audit.js';
import { groupHandlers } from './groups.js';
import type { Handlers, Services } from './types.js';
import { userHandlers } from './users.js';

export function createHandlers(services: Services): Handlers {
  return {
    async validateCredentials(_body, { key }) {
      // The route has authenticated the key already; describe it, never its secret.
      if (!key) throw new Error('validateCredentials reached without a key');
      return { api_key: key.api_key, name: key.name, permissions: key.permissions, expires: key.expires };
    },
    async getHealth() {
      try {
        await services.store.ping();
      } catch {
        throw new ServiceError(503, 'unavailable', 'Service unavailable');
      }
      return { status: 'ok' };
    },
    async getReadiness() {
      const readiness = services.readiness?.notReadyBecause;
      if (readiness) throw new ServiceError(503, 'not_ready', `Not ready: ${readiness}`);
      try {
        await services.store.ping();
      } catch {
        throw new ServiceError(503, 'not_ready', 'Not ready: the database does not answer');
      }
      return { status: 'ready' };
    },
    async getOpenApiDocument() {
      return WORKSPACE_DOCUMENT as Awaited<ReturnType<Handlers['getOpenApiDocument']>>;
    },
    ...userHandlers(services),
    ...groupHandlers(services),
    ...auditHandlers(services),
  };
}
