/**
 * The integration traffic: what an integrator does with the SDK, every
 * operation once on its happy path, then the errors a well-formed request can
 * meet (401, 403, 404, 409). Every exchange is recorded through the SDK's
 * injectable fetch and checked against the contract.
 *
 * The same happy path runs against the Prism mock and the real service (mock
 * parity), and the whole scenario once through `prism proxy --errors`.
 */
import { createWorkspaceClient, type WorkspaceClient } from 'workspace-user-api/client';
import type { OperationId } from '../lib/contract/operations.js';
import { CONTRACT_OPERATIONS, responseViolations } from './contract-schemas.js';
import { type Fixtures, randomHex } from './fixtures.js';
import type { Credentials } from '../lib/contract/credentials.js';

export interface Exchange {
  operationId: OperationId;
  status: number;
  contentType: string | null;
  body: unknown;
  /** Prism's report of what broke the contract, when the traffic went through its proxy. */
  violations: string | null;
}

/** An SDK whose every exchange is recorded. */
function recordingClient(baseUrl: string, credentials: Credentials, exchanges: Exchange[]): WorkspaceClient {
  return createWorkspaceClient({
    baseUrl,
    ...credentials,
    async fetch(request) {
      const path = new URL(request.url).pathname;
      const operation = CONTRACT_OPERATIONS.find((candidate) => candidate.path === path);
      const response = await fetch(request);
      const text = await response.clone().text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Checked as not JSON where JSON is declared.
      }
      exchanges.push({
        operationId: operation?.operationId ?? (path as OperationId),
        status: response.status,
        contentType: response.headers.get('content-type'),
        body,
        violations: response.headers.get('sl-violations'),
      });
      return response;
    },
  });
}

export interface ScenarioOptions {
  baseUrl: string;
  credentials: Credentials;
  /** A group users may join and leave; default the first non-system group listed. */
  groupId?: string;
}

/** Every operation once, on its happy path; returns the exchanges. */
export async function happyPath({ baseUrl, credentials, groupId }: ScenarioOptions, username: string): Promise<Exchange[]> {
  const exchanges: Exchange[] = [];
  const sdk = recordingClient(baseUrl, credentials, exchanges);
  await sdk.validateCredentials();
  const created = await sdk.createUser({
    target_user: { username, first_name: 'Ada', last_name: 'Lovelace', password: 'Correct-Horse-42' },
  });
  const user_id = created.data?.user.user_id ?? randomHex(16);
  await sdk.getUser({ target_user: { user_id } });
  await sdk.getUser({ target_user: { username } });
  await sdk.getUsers({ page: 1, page_size: 25, sort_by: 'created', sort_direction: 'desc' });
  // A second user, so that the newest one is followed by another and its page has a next_cursor.
  const second = await sdk.createUser({ target_user: { username: `second.${username}` } });
  const newest = await sdk.getUsers({ page_size: 1, sort_by: 'created', sort_direction: 'desc' });
  await sdk.getUsers({ cursor: newest.data?.next_cursor ?? 'no-next-cursor', page_size: 1 });
  await sdk.deleteUser({ target_user: { user_id: second.data?.user.user_id ?? randomHex(16) } });
  await sdk.updateUser({ target_user: { user_id, organization: 'Analytical Engines', password: 'Another-Horse-43' } });
  const groups = await sdk.getGroups();
  const group_id = groupId ?? groups.data?.groups.find((group) => !group.is_system)?.group_id ?? randomHex(16);
  await sdk.addUserGroup({ target_user: { user_id }, target_group: { group_id } });
  await sdk.removeUserGroup({ target_user: { user_id }, target_group: { group_id } });
  await sdk.deleteUser({ target_user: { user_id } });
  return exchanges;
}

/** The errors a well-formed request can meet; each must be the contract's. */
export async function errorPaths(
  { baseUrl, credentials }: ScenarioOptions,
  fixtures: Fixtures,
  { limited }: { limited: Credentials | undefined },
): Promise<Exchange[]> {
  const exchanges: Exchange[] = [];
  const sdk = recordingClient(baseUrl, credentials, exchanges);
  const existing = await fixtures.user();
  await sdk.getUser({ target_user: { user_id: randomHex(16) } });
  await sdk.createUser({ target_user: { username: existing.username } });
  await sdk.deleteUser({ target_user: { user_id: randomHex(16) } });
  await recordingClient(baseUrl, fixtures.wrongCredentials(), exchanges).validateCredentials();
  if (limited) await recordingClient(baseUrl, limited, exchanges).getUsers();
  return exchanges;
}

/** What is wrong with each exchange, by the contract (and by Prism, when it was in the way). */
export function exchangeViolations(exchanges: Exchange[]): string[] {
  return exchanges.flatMap((exchange, index) => {
    const operation = CONTRACT_OPERATIONS.find((candidate) => candidate.operationId === exchange.operationId);
    if (!operation) return [`#${index + 1} ${exchange.operationId}: not an operation of the contract`];
    const problems = responseViolations(operation, exchange);
    if (exchange.violations) problems.push(`Prism reports: ${exchange.violations}`);
    return problems.map((problem) => `#${index + 1} ${exchange.operationId} (${exchange.status}): ${problem}`);
  });
}
