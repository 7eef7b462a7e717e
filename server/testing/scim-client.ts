/** A SCIM client for tests: requests to /scim/v2 with a bearer token, answers parsed. */
import { type Credentials, scimToken } from '../../lib/contract/credentials.js';
import type { Answer, TestService } from './service.js';

export interface ScimClient {
  (method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Answer>;
}

/** The token identity providers are given: the key id and its secret joined by a dot. */
export const bearerToken = (credentials: Credentials) => `Bearer ${scimToken(credentials)}`;

export function scimClient(service: TestService, credentials: Credentials = service.admin): ScimClient {
  return (method, path, body, headers = {}) =>
    service.request(`/scim/v2${path}`, {
      method,
      headers: {
        Authorization: bearerToken(credentials),
        ...(body === undefined ? {} : { 'Content-Type': 'application/scim+json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
}

let names = 0;
/** A userName no other test uses. */
export const freshUserName = (label = 'scim') => `${label}-${process.pid}-${Date.now()}-${++names}@example.com`;
