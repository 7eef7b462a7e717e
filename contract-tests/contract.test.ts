import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readContract, resolveReference } from '../lib/contract/document.js';
import { OPERATIONS, PERMISSIONS } from '../lib/contract/operations.js';
import { createApp } from '../server/app.js';
import { createHandlers } from '../server/handlers/index.js';
import { documentationHandlers } from '../server/http/documentation.js';
import { createLogger } from '../server/logger.js';
import type { Store } from '../server/store/repositories.js';
import { appRoutes } from '../server/testing/app-routes.js';
import { contractValidation } from '../server/http/contract-validation.js';
import { SCIM_OPERATIONS, scimContractValidation } from '../server/scim/contract.js';
import { createScimHandlers } from '../server/scim/routes.js';

const contract = readContract('workspace');

type Schema = Record<string, any>;
const resolve = (schema: Schema): Schema => resolveReference<Schema>(contract, schema)!;

/** Every object schema reachable from `schema`, with the path that reaches it. */
function* objectSchemas(schema: Schema, path: string): Generator<[string, Schema]> {
  const resolved = resolve(schema);
  if (resolved.type === 'object') yield [path, resolved];
  for (const [name, property] of Object.entries<Schema>(resolved.properties ?? {})) yield* objectSchemas(property, `${path}.${name}`);
  for (const [index, variant] of [...(resolved.oneOf ?? []), ...(resolved.anyOf ?? [])].entries())
    yield* objectSchemas(variant, `${path}|${index}`);
  if (resolved.items) yield* objectSchemas(resolved.items, `${path}[]`);
}

describe('the contract as the server reads it', () => {
  it("declares the design's operations, Kasm's user operations, /healthz, /readyz and the documentation, and a HEAD for each GET", () => {
    assert.deepEqual(OPERATIONS.map((operation) => operation.operationId).sort(), [
      'addUserGroup',
      'createApiKey',
      'createGroup',
      'createUser',
      'createWebhook',
      'deleteGroup',
      'deleteUser',
      'deleteWebhook',
      'getApiKeys',
      'getApiReference',
      'getAttributes',
      'getAuditEvents',
      'getErrorReference',
      'getEvents',
      'getGroups',
      'getHealth',
      'getOpenApiDocument',
      'getReadiness',
      'getServiceIndex',
      'getSession',
      'getUser',
      'getUsers',
      'getWebhookDeliveries',
      'getWebhooks',
      'headApiReference',
      'headErrorReference',
      'headHealth',
      'headOpenApiDocument',
      'headReadiness',
      'headServiceIndex',
      'logoutUser',
      'pingWebhook',
      'redeliverWebhook',
      'removeUserGroup',
      'revokeApiKey',
      'rotateWebhookSecret',
      'signIn',
      'signOut',
      'updateGroup',
      'updateUser',
      'updateUserAttributes',
      'updateWebhook',
      'validateCredentials',
    ]);
  });

  it('gives every operation a handler, and no handler lacks an operation', () => {
    const handlers = [...Object.keys(createHandlers({ store: {} as Store })), ...Object.keys(documentationHandlers)];
    // A HEAD operation is served by its GET's handler (app.ts).
    assert.deepEqual(
      handlers.sort(),
      OPERATIONS.filter((operation) => operation.method !== 'head')
        .map((operation) => operation.operationId)
        .sort(),
    );
  });

  it('names the permissions of docs/architecture.md, and gives each operation the permission it lists', () => {
    assert.deepEqual(
      [...PERMISSIONS],
      [
        'users_view',
        'users_create',
        'users_modify',
        'users_delete',
        'groups_view',
        'groups_modify',
        'audit_view',
        'groups_modify_system',
        'users_auth_session',
        'groups_create',
        'groups_delete',
        'events_view',
        'webhooks_manage',
        'keys_manage',
      ],
    );
    const permissionOf = Object.fromEntries(OPERATIONS.map((operation) => [operation.operationId, operation.permission]));
    assert.deepEqual(permissionOf, {
      validateCredentials: 'authenticated',
      signIn: 'authenticated',
      getSession: 'authenticated',
      signOut: 'authenticated',
      getUsers: 'users_view',
      getUser: 'users_view',
      createUser: 'users_create',
      updateUser: 'users_modify',
      deleteUser: 'users_delete',
      getGroups: 'groups_view',
      addUserGroup: 'groups_modify',
      removeUserGroup: 'groups_modify',
      createApiKey: 'keys_manage',
      getApiKeys: 'keys_manage',
      revokeApiKey: 'keys_manage',
      getAuditEvents: 'audit_view',
      getEvents: 'events_view',
      createWebhook: 'webhooks_manage',
      getWebhooks: 'webhooks_manage',
      updateWebhook: 'webhooks_manage',
      deleteWebhook: 'webhooks_manage',
      rotateWebhookSecret: 'webhooks_manage',
      getWebhookDeliveries: 'webhooks_manage',
      redeliverWebhook: 'webhooks_manage',
      pingWebhook: 'webhooks_manage',
      getAttributes: 'users_view',
      updateUserAttributes: 'users_modify',
      logoutUser: 'users_auth_session',
      createGroup: 'groups_create',
      updateGroup: 'groups_modify',
      deleteGroup: 'groups_delete',
      getHealth: 'none',
      getServiceIndex: 'none',
      headServiceIndex: 'none',
      getReadiness: 'none',
      headReadiness: 'none',
      getApiReference: 'none',
      getErrorReference: 'none',
      headErrorReference: 'none',
      getOpenApiDocument: 'none',
      headHealth: 'none',
      headApiReference: 'none',
      headOpenApiDocument: 'none',
    });
  });

  it('ignores unknown keys in every request object, as Kasm does, and never closes one', () => {
    let checked = 0;
    for (const operation of OPERATIONS) {
      const body = contract.paths[operation.path][operation.method].requestBody;
      if (!body) continue;
      for (const [path, schema] of objectSchemas(body.content['application/json'].schema, operation.operationId)) {
        assert.equal(schema.additionalProperties, undefined, `${path} decides on unknown keys itself`);
        assert.equal(schema.unevaluatedProperties, undefined, `${path} decides on unknown keys itself`);
        checked++;
      }
    }
    assert.ok(checked >= 18, `only ${checked} request objects found`);
  });

  it('refuses every field the service sets, wherever a user is created or changed (no mass assignment)', () => {
    const userFields = Object.keys(contract.components.schemas.User.properties);
    for (const name of ['NewUser', 'UserUpdate']) {
      const properties = contract.components.schemas[name].properties as Record<string, Schema>;
      const settable = Object.keys(properties).filter((field) => resolve(properties[field]!).not === undefined);
      const refused = Object.keys(properties).filter((field) => !settable.includes(field));
      for (const field of userFields.filter((field) => !settable.includes(field))) {
        assert.ok(refused.includes(field), `${name} neither takes nor refuses ${field}`);
      }
      assert.ok(refused.includes('password_hash'), `${name} does not refuse password_hash`);
      for (const field of refused) assert.deepEqual(resolve(properties[field]!).not, {}, `${name}.${field}`);
    }
  });

  it('declares 400, 401, 413, 415, 429 and 500 on every authenticated operation', () => {
    for (const operation of OPERATIONS.filter((op) => op.permission !== 'none')) {
      const statuses = Object.keys(contract.paths[operation.path][operation.method].responses);
      for (const status of ['200', '400', '401', '413', '415', '429', '500']) {
        assert.ok(statuses.includes(status), `${operation.operationId} does not declare ${status}`);
      }
      if (operation.permission !== 'authenticated') assert.ok(statuses.includes('403'), `${operation.operationId} does not declare 403`);
    }
  });

  it('exposes no route the contracts do not describe', () => {
    const app = createApp({
      store: {} as Store,
      handlers: createHandlers({ store: {} as Store }),
      validation: contractValidation({ responses: false }),
      scimHandlers: createScimHandlers({} as Store),
      scimValidation: scimContractValidation({ responses: false }),
      logger: createLogger('silent'),
      authThrottle: { maxFailures: 1, windowSeconds: 1 },
    });
    const routes = appRoutes(app).sort();
    const described = [
      ...OPERATIONS.map((operation) => `${operation.method} ${operation.path}`),
      ...SCIM_OPERATIONS.map((operation) => `${operation.method} ${operation.route}`),
    ];
    assert.deepEqual(routes, described.sort());
  });
});
