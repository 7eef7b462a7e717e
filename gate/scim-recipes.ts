/**
 * How to make the SCIM service give each status its contract declares: one
 * recipe per (operation, status), as recipes.ts has for the workspace API.
 * Requests authenticate with SCIM's bearer token; users and groups come from
 * the same fixtures, since both protocols share one directory.
 */
import { BODY_LIMIT_BYTES } from '../lib/contract/operations.js';
import { SCIM_OPERATIONS, type ScimOperationId } from '../lib/contract/scim-operations.js';
import { type Fixtures, randomHex } from './fixtures.js';
import { expectReplay, scimRequest, spendKey, withKey } from './idempotency-recipes.js';
import type { HttpMethod } from './contract-schemas.js';
import type { PreparedRequest, Recipe } from './recipes.js';

const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ENTERPRISE_SCHEMA = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const STRONG_PASSWORD = 'Correct-Horse-42';
/** No resource is ever at version 0 (versions start at 1): a change made at it is refused, and nothing changes. */
const STALE = { 'If-Match': 'W/"0"' };

const userBody = (userName: string, extra: Record<string, unknown> = {}) => ({ schemas: [USER_SCHEMA], userName, ...extra });
const groupBody = (displayName: string, extra: Record<string, unknown> = {}) => ({ schemas: [GROUP_SCHEMA], displayName, ...extra });
const patchBody = (...operations: Record<string, unknown>[]) => ({ schemas: [PATCH_SCHEMA], Operations: operations });
const filterQuery = (filter: string) => `?filter=${encodeURIComponent(filter)}&startIndex=1&count=10`;

/** A request the contract accepts, on a resource no one has: for the statuses decided before any lookup. */
function wellFormed(operationId: ScimOperationId, f: Fixtures): PreparedRequest {
  const absent = randomHex(16);
  switch (operationId) {
    case 'listUsers':
      return { path: '/Users', query: '?count=1' };
    case 'listGroups':
      return { path: '/Groups', query: '?count=1' };
    case 'createUser':
      return { path: '/Users', body: userBody(f.username()) };
    case 'createGroup':
      return { path: '/Groups', body: groupBody(f.groupName()) };
    case 'getUser':
    case 'deleteUser':
      return { path: `/Users/${absent}` };
    case 'replaceUser':
      return { path: `/Users/${absent}`, body: userBody(f.username()) };
    case 'patchUser':
      return { path: `/Users/${absent}`, body: patchBody({ op: 'replace', path: 'active', value: false }) };
    case 'getGroup':
    case 'deleteGroup':
      return { path: `/Groups/${absent}` };
    case 'replaceGroup':
      return { path: `/Groups/${absent}`, body: groupBody(f.groupName()) };
    case 'patchGroup':
      return { path: `/Groups/${absent}`, body: patchBody({ op: 'replace', path: 'displayName', value: f.groupName() }) };
    default:
      // The discovery documents: the contract's example path will do.
      return {};
  }
}

/** The request with the admin's bearer token. */
const asAdmin = (f: Fixtures, request: PreparedRequest): PreparedRequest => ({
  ...request,
  headers: { ...f.scimAuthorization(), ...request.headers },
});

type ScimRecipe = (f: Fixtures) => Promise<PreparedRequest>;

/** The statuses that mean something particular to one operation, each with the admin's token. */
const PARTICULAR: Partial<Record<`${ScimOperationId} ${number}`, ScimRecipe>> = {
  'getServiceProviderConfig 200': async () => ({ path: '/ServiceProviderConfig' }),
  'listResourceTypes 200': async () => ({ path: '/ResourceTypes' }),
  'getResourceType 200': async () => ({ path: '/ResourceTypes/Group' }),
  'getResourceType 404': async () => ({ path: '/ResourceTypes/Printer' }),
  'listSchemas 200': async () => ({ path: '/Schemas' }),
  'getSchema 200': async () => ({ path: `/Schemas/${ENTERPRISE_SCHEMA}` }),
  'getSchema 404': async () => ({ path: '/Schemas/urn:ietf:params:scim:schemas:core:2.0:Printer' }),

  // Entra ID's lookup before every create, and Okta's paging.
  'listUsers 200': async (f) => ({ path: '/Users', query: filterQuery(`userName eq "${(await f.user()).username}"`) }),
  'listUsers 400': async () => ({ path: '/Users', query: filterQuery('userName zz "nobody"') }),
  'createUser 201': async (f) => ({
    path: '/Users',
    body: userBody(f.username(), {
      externalId: randomHex(8),
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      active: 'True',
      password: STRONG_PASSWORD,
      emails: [{ value: 'ada@example.com', type: 'work', primary: true }],
      phoneNumbers: [{ value: '555-0100', type: 'work' }],
      [ENTERPRISE_SCHEMA]: { organization: 'Analytical Engines' },
    }),
  }),
  'createUser 400': async (f) => ({ path: '/Users', body: userBody(f.username(), { password: 'weak' }) }),
  'createUser 409': async (f) => ({ path: '/Users', body: userBody((await f.user()).username.toUpperCase()) }),
  'getUser 200': async (f) => ({ path: `/Users/${(await f.user()).user_id}`, query: '?attributes=userName,active' }),
  'getUser 400': async (f) => ({ path: `/Users/${(await f.user()).user_id}`, query: '?unexpected=1' }),
  'getUser 404': async (f) => wellFormed('getUser', f),
  'replaceUser 200': async (f) => {
    const user = await f.user();
    return { path: `/Users/${user.user_id}`, body: userBody(user.username, { name: { givenName: 'Grace' }, active: false }) };
  },
  'replaceUser 400': async (f) => {
    const user = await f.user();
    return { path: `/Users/${user.user_id}`, body: userBody(user.username, { password: 'password' }) };
  },
  'replaceUser 404': async (f) => wellFormed('replaceUser', f),
  'replaceUser 409': async (f) => {
    const [renamed, owner] = await Promise.all([f.user(), f.user()]);
    return { path: `/Users/${renamed.user_id}`, body: userBody(owner.username) };
  },
  'replaceUser 412': async (f) => {
    const user = await f.user();
    return { path: `/Users/${user.user_id}`, body: userBody(user.username), headers: STALE };
  },
  // Entra ID's deactivation: "Replace" with the string "False".
  'patchUser 200': async (f) => ({
    path: `/Users/${(await f.user()).user_id}`,
    body: patchBody({ op: 'Replace', path: 'active', value: 'False' }),
  }),
  // A remove without a path has nothing to remove (noTarget).
  'patchUser 400': async (f) => ({ path: `/Users/${(await f.user()).user_id}`, body: patchBody({ op: 'remove' }) }),
  'patchUser 404': async (f) => wellFormed('patchUser', f),
  'patchUser 409': async (f) => {
    const [renamed, owner] = await Promise.all([f.user(), f.user()]);
    return { path: `/Users/${renamed.user_id}`, body: patchBody({ op: 'replace', path: 'userName', value: owner.username }) };
  },
  'patchUser 412': async (f) => ({
    path: `/Users/${(await f.user()).user_id}`,
    body: patchBody({ op: 'replace', path: 'active', value: false }),
    headers: STALE,
  }),
  'deleteUser 204': async (f) => ({ path: `/Users/${(await f.user()).user_id}` }),
  'deleteUser 404': async (f) => wellFormed('deleteUser', f),
  'deleteUser 412': async (f) => ({ path: `/Users/${(await f.user()).user_id}`, headers: STALE }),

  'listGroups 200': async (f) => ({ path: '/Groups', query: filterQuery(`displayName eq "${(await f.apiGroup()).name}"`) }),
  'listGroups 400': async () => ({ path: '/Groups', query: filterQuery('displayName eq') }),
  'createGroup 201': async (f) => ({
    path: '/Groups',
    body: groupBody(f.groupName(), { externalId: randomHex(8), members: [{ value: (await f.user()).user_id }] }),
  }),
  // A member no user is.
  'createGroup 400': async (f) => ({ path: '/Groups', body: groupBody(f.groupName(), { members: [{ value: randomHex(16) }] }) }),
  'createGroup 409': async (f) => ({ path: '/Groups', body: groupBody((await f.apiGroup()).name) }),
  'getGroup 200': async (f) => ({ path: `/Groups/${(await f.apiGroup()).group_id}` }),
  'getGroup 400': async (f) => ({ path: `/Groups/${(await f.apiGroup()).group_id}`, query: '?unexpected=1' }),
  'getGroup 404': async (f) => wellFormed('getGroup', f),
  'replaceGroup 200': async (f) => {
    const [group, user] = await Promise.all([f.apiGroup(), f.user()]);
    return { path: `/Groups/${group.group_id}`, body: groupBody(f.groupName(), { members: [{ value: user.user_id }] }) };
  },
  'replaceGroup 400': async (f) => ({
    path: `/Groups/${(await f.apiGroup()).group_id}`,
    body: groupBody(f.groupName(), { members: [{ value: randomHex(16) }] }),
  }),
  'replaceGroup 404': async (f) => wellFormed('replaceGroup', f),
  'replaceGroup 409': async (f) => {
    const [renamed, owner] = await Promise.all([f.apiGroup(), f.apiGroup()]);
    return { path: `/Groups/${renamed.group_id}`, body: groupBody(owner.name) };
  },
  'replaceGroup 412': async (f) => ({ path: `/Groups/${(await f.apiGroup()).group_id}`, body: groupBody(f.groupName()), headers: STALE }),
  // A client that names what to show gets the group back.
  'patchGroup 200': async (f) => {
    const [group, member] = await Promise.all([f.apiGroup(), f.user()]);
    return {
      path: `/Groups/${group.group_id}`,
      query: '?excludedAttributes=members',
      body: patchBody(
        { op: 'add', path: 'members', value: [{ value: member.user_id }] },
        { op: 'replace', value: { displayName: f.groupName() } },
      ),
    };
  },
  // Entra ID's batched member changes.
  'patchGroup 204': async (f) => {
    const [group, first, second] = await Promise.all([f.apiGroup(), f.user(), f.user()]);
    return {
      path: `/Groups/${group.group_id}`,
      body: patchBody({ op: 'Add', path: 'members', value: [{ value: first.user_id }, { value: second.user_id }] }),
    };
  },
  'patchGroup 400': async (f) => ({ path: `/Groups/${(await f.apiGroup()).group_id}`, body: patchBody({ op: 'remove' }) }),
  'patchGroup 404': async (f) => wellFormed('patchGroup', f),
  'patchGroup 409': async (f) => {
    const [renamed, owner] = await Promise.all([f.apiGroup(), f.apiGroup()]);
    return { path: `/Groups/${renamed.group_id}`, body: patchBody({ op: 'replace', path: 'displayName', value: owner.name }) };
  },
  'patchGroup 412': async (f) => ({
    path: `/Groups/${(await f.apiGroup()).group_id}`,
    body: patchBody({ op: 'replace', path: 'displayName', value: f.groupName() }),
    headers: STALE,
  }),
  'deleteGroup 204': async (f) => ({ path: `/Groups/${(await f.apiGroup()).group_id}` }),
  'deleteGroup 404': async (f) => wellFormed('deleteGroup', f),
  // The system group ("All Users") cannot be deleted.
  'deleteGroup 409': async (f) => ({ path: `/Groups/${(await f.systemGroup()).group_id}` }),
  'deleteGroup 412': async (f) => ({ path: `/Groups/${(await f.apiGroup()).group_id}`, headers: STALE }),
};

/** The HTTP method of a SCIM operation. */
function methodOf(operationId: ScimOperationId): HttpMethod {
  const operation = SCIM_OPERATIONS.find((candidate) => candidate.operationId === operationId);
  if (!operation) throw new Error(`no SCIM operation ${operationId}`);
  return operation.method.toUpperCase() as HttpMethod;
}

/** The recipe of an operation's success (its 201, 200 or 204). */
function successOf(operationId: ScimOperationId): ScimRecipe {
  const success = PARTICULAR[`${operationId} 201`] ?? PARTICULAR[`${operationId} 200`] ?? PARTICULAR[`${operationId} 204`];
  if (!success) throw new Error(`the gate has no success of SCIM's ${operationId}`);
  return success;
}

/** Statuses reached the same way for every operation that declares them. */
function generic(operationId: ScimOperationId, status: number): Recipe | undefined {
  switch (status) {
    // The operations whose 400 means only one thing: a query parameter they do not declare.
    case 400:
      return async (f) => asAdmin(f, { ...wellFormed(operationId, f), query: '?unexpected=1' });
    case 401:
      return async (f) => ({
        ...wellFormed(operationId, f),
        headers: { ...f.scimAuthorization(f.wrongCredentials()), ...f.failureClient() },
      });
    case 403:
      return async (f) => ({ ...wellFormed(operationId, f), headers: f.scimAuthorization(await f.limitedKey()) });
    case 413:
      return async (f) => {
        const request = wellFormed(operationId, f);
        return asAdmin(f, { ...request, body: { ...request.body, padding: 'x'.repeat(BODY_LIMIT_BYTES) } });
      };
    case 415:
      return async (f) => {
        const request = wellFormed(operationId, f);
        return asAdmin(f, { ...request, rawBody: JSON.stringify(request.body), contentType: 'text/plain' });
      };
    case 429:
      return async (f) => {
        const { credentials, headers } = await f.throttledClient();
        return { ...wellFormed(operationId, f), headers: { ...f.scimAuthorization(credentials), ...headers } };
      };
    // Another request under the key: on the way, a retry under a key of its own must replay the first answer.
    case 422:
      return async (f) => {
        const request = asAdmin(f, await successOf(operationId)(f));
        const first = await expectReplay(f, scimRequest(methodOf(operationId), request), false);
        const made = (first.body as { id?: string }).id;
        if (operationId === 'createUser' && made) f.track(made);
        const key = f.idempotencyKey();
        await spendKey(f, key);
        return withKey(asAdmin(f, wellFormed(operationId, f)), key);
      };
    // The 409 only a key brings: its first request still running.
    case 409:
      return async (f) => {
        const request = withKey(asAdmin(f, await successOf(operationId)(f)), f.idempotencyKey());
        await f.sendHeld(`SCIM ${operationId}`, scimRequest(methodOf(operationId), request));
        return request;
      };
    case 500:
    case 503:
      return async (f) => {
        f.arm(`SCIM ${operationId}`, status === 500 ? 'internal' : 'unavailable');
        return asAdmin(f, wellFormed(operationId, f));
      };
  }
  return undefined;
}

/** The recipe for one declared status; throws when the gate has none, so a newly declared status cannot go untested. */
export function scimRecipeFor(operationId: ScimOperationId, status: number): Recipe {
  const particular = PARTICULAR[`${operationId} ${status}`];
  if (particular) return async (f) => asAdmin(f, await particular(f));
  const recipe = generic(operationId, status);
  if (!recipe) throw new Error(`the gate has no way to provoke ${status} from SCIM's ${operationId}: add a recipe in gate/scim-recipes.ts`);
  return recipe;
}
