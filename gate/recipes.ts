/**
 * How to make the service give each status the contract declares: one recipe
 * per (operation, status), building a request and the fixtures it needs.
 * Dredd sends these requests; the gate checks the answers.
 */

import type { OperationId } from '../lib/contract/operations.js';
import { BODY_LIMIT_BYTES, OPERATIONS } from '../lib/contract/operations.js';
import { Fixtures, randomHex } from './fixtures.js';
import { expectReplay, spendKey, withKey, workspaceRequest } from './idempotency-recipes.js';

export interface PreparedRequest {
  /** The path under the contract's base, with the fixtures' ids (`/Users/…`); the contract's example path when left out. */
  path?: string;
  /** The JSON body (operations that take one). */
  body?: Record<string, unknown>;
  /** Sent instead of the JSON of `body`. */
  rawBody?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** Appended to the path, e.g. `?unexpected=1`. */
  query?: string;
}

export type Recipe = (fixtures: Fixtures) => Promise<PreparedRequest>;

/** A request that passes the contract and authenticates, and would change or find nothing in particular. */
function wellFormed(operationId: OperationId, fixtures: Fixtures): Record<string, unknown> {
  const target_user = { user_id: randomHex(16) };
  const target_group = { group_id: randomHex(16) };
  switch (operationId) {
    case 'getUser':
    case 'deleteUser':
      return { ...fixtures.admin, target_user };
    case 'updateUser':
      return { ...fixtures.admin, target_user: { ...target_user, first_name: 'Nobody' } };
    case 'createUser':
      return { ...fixtures.admin, target_user: { username: fixtures.username() } };
    case 'addUserGroup':
    case 'removeUserGroup':
      return { ...fixtures.admin, target_user, target_group };
    case 'getAttributes':
    case 'logoutUser':
      return { ...fixtures.admin, target_user };
    case 'updateUserAttributes':
      return { ...fixtures.admin, target_user_attributes: { ...target_user, theme: 'Dark' } };
    case 'createGroup':
      return { ...fixtures.admin, target_group: { name: fixtures.groupName() } };
    case 'updateGroup':
      return { ...fixtures.admin, target_group: { ...target_group, description: 'Nobody' } };
    case 'deleteGroup':
      return { ...fixtures.admin, target_group };
    case 'createWebhook':
      return {
        ...fixtures.admin,
        target_webhook: { url: Fixtures.WEBHOOK_URL, event_types: ['api_key.revoked'], description: fixtures.webhookDescription() },
      };
    case 'updateWebhook':
      return { ...fixtures.admin, target_webhook: { webhook_id: randomHex(16), description: 'Nobody' } };
    case 'createApiKey':
      return { ...fixtures.admin, target_api_key: { name: fixtures.keyName() } };
    case 'revokeApiKey':
      return { ...fixtures.admin, target_api_key: { api_key: `gate-${randomHex(8)}` } };
    case 'deleteWebhook':
    case 'rotateWebhookSecret':
    case 'getWebhookDeliveries':
    case 'redeliverWebhook':
    case 'pingWebhook':
      return { ...fixtures.admin, target_webhook: { webhook_id: randomHex(16) } };
    default:
      return { ...fixtures.admin };
  }
}

const STRONG_PASSWORD = 'Correct-Horse-42';

/** A request under a fresh console session of the admin key: its cookie, and its CSRF token unless left out. */
const underSession = async (f: Fixtures, { csrf = true } = {}): Promise<PreparedRequest> => {
  const session = await f.consoleSession();
  return { body: {}, headers: { Cookie: session.cookie, ...(csrf ? { 'X-CSRF-Token': session.csrf } : {}) } };
};

/** The 200 of each operation. */
const SUCCESS: Partial<Record<OperationId, Recipe>> = {
  validateCredentials: async (f) => ({ body: { ...f.admin } }),
  signIn: async (f) => ({ body: { ...f.admin } }),
  getSession: async (f) => underSession(f, { csrf: false }),
  signOut: async (f) => underSession(f),
  getUsers: async (f) => ({ body: { ...f.admin, page: 1, page_size: 10, sort_by: 'created', sort_direction: 'desc' } }),
  getUser: async (f) => ({ body: { ...f.admin, target_user: { user_id: (await f.user()).user_id } } }),
  createUser: async (f) => ({
    body: {
      ...f.admin,
      target_user: { username: f.username(), first_name: 'Ada', last_name: 'Lovelace', phone: '555-0100', password: STRONG_PASSWORD },
    },
  }),
  updateUser: async (f) => ({
    body: { ...f.admin, target_user: { user_id: (await f.user()).user_id, first_name: 'Grace', locked: true, password: STRONG_PASSWORD } },
  }),
  deleteUser: async (f) => ({ body: { ...f.admin, target_user: { user_id: (await f.user()).user_id } } }),
  getGroups: async (f) => ({ body: { ...f.admin } }),
  addUserGroup: async (f) => {
    const [user, group] = await Promise.all([f.user(), f.group()]);
    return { body: { ...f.admin, target_user: { user_id: user.user_id }, target_group: { group_id: group.group_id } } };
  },
  removeUserGroup: async (f) => {
    const { user, group } = await f.member();
    return { body: { ...f.admin, target_user: { user_id: user.user_id }, target_group: { group_id: group.group_id } } };
  },
  createApiKey: async (f) => ({
    body: { ...f.admin, target_api_key: { name: f.keyName(), permissions: ['users_view'], expires: await f.grantableExpiry() } },
  }),
  getApiKeys: async (f) => ({ body: { ...f.admin, include_revoked: true } }),
  revokeApiKey: async (f) => ({ body: { ...f.admin, target_api_key: { api_key: (await f.throwawayKey()).api_key } } }),
  getAuditEvents: async (f) => ({ body: { ...f.admin, page_size: 10 } }),
  getEvents: async (f) => ({ body: { ...f.admin, types: ['user.*'], limit: 10 } }),
  createWebhook: async (f) => ({ body: wellFormed('createWebhook', f) }),
  getWebhooks: async (f) => ({ body: { ...f.admin } }),
  updateWebhook: async (f) => ({
    body: { ...f.admin, target_webhook: { webhook_id: (await f.webhook()).webhook_id, description: 'Changed' } },
  }),
  deleteWebhook: async (f) => ({ body: { ...f.admin, target_webhook: { webhook_id: (await f.webhook()).webhook_id } } }),
  rotateWebhookSecret: async (f) => ({ body: { ...f.admin, target_webhook: { webhook_id: (await f.webhook()).webhook_id } } }),
  getWebhookDeliveries: async (f) => ({ body: { ...f.admin, target_webhook: { webhook_id: (await f.webhook()).webhook_id }, limit: 5 } }),
  redeliverWebhook: async (f) => ({
    body: { ...f.admin, target_webhook: { webhook_id: (await f.webhook()).webhook_id }, event_id: 'none-such' },
  }),
  pingWebhook: async (f) => ({ body: { ...f.admin, target_webhook: { webhook_id: (await f.webhook()).webhook_id } } }),
  getAttributes: async (f) => ({ body: { ...f.admin, target_user: { user_id: (await f.user()).user_id } } }),
  updateUserAttributes: async (f) => ({
    body: {
      ...f.admin,
      target_user_attributes: { user_id: (await f.user()).user_id, theme: 'Dark', preferred_language: 'en-GB', preferred_timezone: 'UTC' },
    },
  }),
  logoutUser: async (f) => ({ body: { ...f.admin, target_user: { user_id: (await f.user()).user_id } } }),
  createGroup: async (f) => ({
    body: { ...f.admin, target_group: { name: f.groupName(), description: 'Made by the gate', priority: 10 } },
  }),
  updateGroup: async (f) => ({ body: { ...f.admin, target_group: { group_id: (await f.apiGroup()).group_id, name: f.groupName() } } }),
  deleteGroup: async (f) => ({ body: { ...f.admin, target_group: { group_id: (await f.apiGroup()).group_id } } }),
  getServiceIndex: async () => ({}),
  getHealth: async () => ({}),
  getReadiness: async () => ({}),
  getApiReference: async () => ({}),
  getErrorReference: async () => ({}),
  getOpenApiDocument: async () => ({}),
};

/** An operation that takes an Idempotency-Key: its path, and whether its answer is withheld from the retries (a secret's). */
function keyed(operationId: OperationId): { path: string; withheld: boolean } {
  const operation = OPERATIONS.find((candidate) => candidate.operationId === operationId);
  if (!operation || operation.idempotencyKey === 'not-taken') throw new Error(`${operationId} takes no Idempotency-Key`);
  return { path: operation.path, withheld: operation.idempotencyKey === 'answer-withheld' };
}

/** Statuses reached the same way for every operation that declares them. */
function generic(operationId: OperationId, status: number, isGet: boolean): Recipe | undefined {
  switch (status) {
    case 200:
      return SUCCESS[operationId];
    case 400:
      if (isGet) return async () => ({ query: '?unexpected=1' });
      if (operationId === 'createUser')
        return async (f) => ({ body: { ...f.admin, target_user: { username: f.username(), password: 'weak' } } });
      if (operationId === 'updateUser')
        return async (f) => ({ body: { ...f.admin, target_user: { user_id: (await f.user()).user_id, password: 'password' } } });
      // Unknown keys are ignored (Kasm's tolerance); a secret that is not a string is not.
      return async (f) => ({ body: { ...wellFormed(operationId, f), api_key_secret: 42 } });
    case 401:
      return async (f) => ({ body: { ...wellFormed(operationId, f), ...f.wrongCredentials() }, headers: f.failureClient() });
    case 403:
      return async (f) => ({ body: { ...wellFormed(operationId, f), ...(await f.limitedKey()) } });
    case 413:
      return async (f) => ({ body: { ...wellFormed(operationId, f), padding: 'x'.repeat(BODY_LIMIT_BYTES) } });
    case 415:
      return async (f) => ({ rawBody: JSON.stringify(wellFormed(operationId, f)), contentType: 'text/plain' });
    case 429:
      return async (f) => {
        const { credentials, headers } = await f.throttledClient();
        return { body: { ...wellFormed(operationId, f), ...credentials }, headers };
      };
    // Another request under the key: on the way, a retry under a key of its own must replay the first answer.
    case 422:
      return async (f) => {
        const { path, withheld } = keyed(operationId);
        const request = await SUCCESS[operationId]!(f);
        const first = await expectReplay(f, workspaceRequest(path, request), withheld);
        const made = (first.body as { user?: { user_id?: string } }).user?.user_id;
        if (operationId === 'createUser' && made) f.track(made);
        const key = f.idempotencyKey();
        await spendKey(f, key);
        return withKey(request, key);
      };
    // The 409 only a key brings: its first request still running, or its answer showing a secret, not kept.
    case 409:
      return async (f) => {
        const { path, withheld } = keyed(operationId);
        const key = f.idempotencyKey();
        const request = withKey(await SUCCESS[operationId]!(f), key);
        if (!withheld) await f.sendHeld(operationId, workspaceRequest(path, request));
        else if ((await f.request(workspaceRequest(path, request))).status !== 200)
          throw new Error(`${operationId} failed under a new key`);
        return request;
      };
    case 500:
      return async (f) => {
        const request = await SUCCESS[operationId]!(f);
        f.arm(operationId, 'internal');
        return request;
      };
    case 503:
      return async (f) => {
        const request = isGet ? {} : await SUCCESS[operationId]!(f);
        f.arm(operationId, 'unavailable');
        return request;
      };
  }
  return undefined;
}

/** Statuses that mean something particular to one operation. */
const PARTICULAR: Partial<Record<`${OperationId} ${number}`, Recipe>> = {
  // Under a console session, a request without its CSRF token.
  'validateCredentials 403': async (f) => underSession(f, { csrf: false }),
  'signOut 403': async (f) => underSession(f, { csrf: false }),
  // The session's operations read nothing of the body but that it is a JSON object.
  'getSession 400': async (f) => ({ ...(await underSession(f, { csrf: false })), body: undefined, rawBody: '[]' }),
  'signOut 400': async (f) => ({ ...(await underSession(f)), body: undefined, rawBody: '[]' }),
  // A session no one has (its token made up): ended, whatever the throttle holds of the gate's address.
  'getSession 401': async () => ({ body: {}, headers: { Cookie: `workspace_session=${randomHex(22)}` } }),
  'signOut 401': async () => ({ body: {}, headers: { Cookie: `workspace_session=${randomHex(22)}` } }),
  // They take no key: a client that failed too often without credentials is throttled.
  'getSession 429': async (f) => ({ body: {}, headers: await f.throttledWithoutCredentials('/api/public/get_session') }),
  'signOut 429': async (f) => ({ body: {}, headers: await f.throttledWithoutCredentials('/api/public/sign_out') }),
  // The page a browser holds is still the page: not modified.
  'getApiReference 304': async (f) => ({ headers: { 'If-None-Match': await f.pageTag(), 'Accept-Encoding': 'identity' } }),
  'getUser 404': async (f) => ({ body: wellFormed('getUser', f) }),
  'updateUser 404': async (f) => ({ body: wellFormed('updateUser', f) }),
  'deleteUser 404': async (f) => ({ body: wellFormed('deleteUser', f) }),
  'createUser 409': async (f) => ({ body: { ...f.admin, target_user: { username: ` ${(await f.user()).username.toUpperCase()} ` } } }),
  'updateUser 409': async (f) => {
    const [renamed, owner] = await Promise.all([f.user(), f.user()]);
    return { body: { ...f.admin, target_user: { user_id: renamed.user_id, username: owner.username } } };
  },
  // Versions start at 1: no user is ever at 0, so the change is refused and nothing changes.
  'updateUser 412': async (f) => ({
    body: { ...f.admin, target_user: { user_id: (await f.user()).user_id, first_name: 'Stale' } },
    headers: { 'If-Match': 'W/"0"' },
  }),
  'deleteUser 412': async (f) => ({
    body: { ...f.admin, target_user: { user_id: (await f.user()).user_id } },
    headers: { 'If-Match': 'W/"0"' },
  }),
  'getAttributes 404': async (f) => ({ body: wellFormed('getAttributes', f) }),
  'updateUserAttributes 404': async (f) => ({ body: wellFormed('updateUserAttributes', f) }),
  'logoutUser 404': async (f) => ({ body: wellFormed('logoutUser', f) }),
  'updateGroup 404': async (f) => ({ body: wellFormed('updateGroup', f) }),
  'deleteGroup 404': async (f) => ({ body: wellFormed('deleteGroup', f) }),
  'createGroup 409': async (f) => ({ body: { ...f.admin, target_group: { name: (await f.apiGroup()).name } } }),
  // A system group keeps its name and its place: both are refused, and nothing changes.
  'updateGroup 409': async (f) => ({
    body: { ...f.admin, target_group: { group_id: (await f.systemGroup()).group_id, name: f.groupName() } },
  }),
  'deleteGroup 409': async (f) => ({ body: { ...f.admin, target_group: { group_id: (await f.systemGroup()).group_id } } }),
  'addUserGroup 404': async (f) => ({
    body: { ...f.admin, target_user: { user_id: (await f.user()).user_id }, target_group: { group_id: randomHex(16) } },
  }),
  'revokeApiKey 404': async (f) => ({ body: wellFormed('revokeApiKey', f) }),
  'updateWebhook 404': async (f) => ({ body: wellFormed('updateWebhook', f) }),
  'deleteWebhook 404': async (f) => ({ body: wellFormed('deleteWebhook', f) }),
  'rotateWebhookSecret 404': async (f) => ({ body: wellFormed('rotateWebhookSecret', f) }),
  'getWebhookDeliveries 404': async (f) => ({ body: wellFormed('getWebhookDeliveries', f) }),
  'redeliverWebhook 404': async (f) => ({ body: wellFormed('redeliverWebhook', f) }),
  'pingWebhook 404': async (f) => ({ body: wellFormed('pingWebhook', f) }),
  // A cursor that read up to 1 January 1970: older than any feed reaches.
  'getEvents 410': async (f) => ({ body: { ...f.admin, after: Buffer.from('1.1000').toString('base64url') } }),
  'removeUserGroup 404': async (f) => ({
    body: { ...f.admin, target_user: { user_id: randomHex(16) }, target_group: { group_id: (await f.systemGroup()).group_id } },
  }),
  // Every user is in the system group: joining it again conflicts.
  'addUserGroup 409': async (f) => {
    const [user, group] = await Promise.all([f.user(), f.systemGroup()]);
    return { body: { ...f.admin, target_user: { user_id: user.user_id }, target_group: { group_id: group.group_id } } };
  },
  // Leaving a group twice conflicts. The admin key holds groups_modify_system, so the system
  // group, which needs no group of the gate's own, can be left once.
  'removeUserGroup 409': async (f) => {
    const [user, group] = await Promise.all([f.user(), f.systemGroup()]);
    const target = { target_user: { user_id: user.user_id }, target_group: { group_id: group.group_id } };
    await f.call('remove_user_group', target);
    return { body: { ...f.admin, ...target } };
  },
};

/** The recipe for one declared status; throws when the gate has none, so a newly declared status cannot go untested. */
export function recipeFor(operationId: OperationId, status: number, isGet: boolean): Recipe {
  const recipe = PARTICULAR[`${operationId} ${status}`] ?? generic(operationId, status, isGet);
  if (!recipe) throw new Error(`the gate has no way to provoke ${status} from ${operationId}: add a recipe in gate/recipes.ts`);
  return recipe;
}
