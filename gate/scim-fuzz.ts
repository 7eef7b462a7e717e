/**
 * The fuzz of the SCIM contract, in the session the workspace fuzz used
 * (fuzz-session.ts): for every SCIM operation, `runs` requests the contract
 * accepts and `runs` it refuses. Bodies come from the request schemas
 * (arbitraries.ts), with real ids, names and PATCH paths mixed in so that
 * requests get past lookups; list queries come from a small filter grammar
 * beside arbitrary text, and from the parameters' own schemas.
 *
 * Besides the checks every exchange gets (a declared status with a body the
 * schema accepts, never a 5xx, a refused request changes nothing), a request
 * the contract accepts must never be refused as `invalidSyntax`, and one it
 * refuses must get 400.
 */
import fc from 'fast-check';
import { invalidValue, type Overrides, validValue } from './arbitraries.js';
import { type OperationContract, requestViolations, SCIM_CONTRACT_OPERATIONS } from './contract-schemas.js';
import { type Fixtures, randomHex } from './fixtures.js';
import type { FuzzDialect, FuzzSession } from './fuzz-session.js';
import type { RawRequest } from './http.js';

const SCIM_DIALECT: FuzzDialect = {
  refusedAsMalformed: (answer) => answer.status === 400 && (answer.body as { scimType?: string } | undefined)?.scimType === 'invalidSyntax',
  changed: (answer) => answer.status >= 200 && answer.status < 300,
  created(operation, answer, fixtures) {
    if (answer.status !== 201) return;
    const { id } = answer.body as { id: string };
    if (operation.operationId === 'createUser') fixtures.track(id);
    if (operation.operationId === 'createGroup') fixtures.trackGroup(id);
  },
};

const USER_ATTRIBUTES = [
  'id',
  'externalId',
  'userName',
  'name.givenName',
  'name.familyName',
  'active',
  'emails.value',
  'phoneNumbers.value',
  'meta.created',
  'meta.lastModified',
  'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:organization',
  // Names the directory does not keep, and names every JavaScript object has.
  'title',
  '__proto__',
];
const GROUP_ATTRIBUTES = [
  'id',
  'externalId',
  'displayName',
  'members',
  'members.value',
  'meta.created',
  'meta.lastModified',
  'title',
  'constructor',
];
const COMPARISONS = ['eq', 'ne', 'co', 'sw', 'ew', 'gt', 'ge', 'lt', 'le'];

/** Filters as a client writes them: comparisons, presence, and/or/not and parentheses, over real values now and then. */
function filterText(attributes: string[], values: string[]): fc.Arbitrary<string> {
  const literal = fc.oneof(
    fc.constantFrom(...values.map((value) => JSON.stringify(value))),
    fc.constantFrom('true', 'false', 'null', '42', '"2026-01-01T00:00:00Z"', '"a"', '""'),
    fc.string({ maxLength: 12 }).map((text) => JSON.stringify(text)),
  );
  const { filter } = fc.letrec<{ filter: string; comparison: string }>((tie) => ({
    comparison: fc.oneof(
      fc
        .tuple(fc.constantFrom(...attributes), fc.constantFrom(...COMPARISONS), literal)
        .map(([name, op, value]) => `${name} ${op} ${value}`),
      fc.constantFrom(...attributes).map((name) => `${name} pr`),
    ),
    filter: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      tie('comparison'),
      fc.tuple(tie('filter'), fc.constantFrom('and', 'or'), tie('filter')).map(([left, op, right]) => `${left} ${op} ${right}`),
      tie('filter').map((inner) => `not (${inner})`),
      tie('filter').map((inner) => `(${inner})`),
    ),
  }));
  return fc.oneof({ arbitrary: filter, weight: 4 }, { arbitrary: fc.string({ maxLength: 40 }), weight: 1 });
}

const attributeList = (attributes: string[]) =>
  fc.uniqueArray(fc.constantFrom(...attributes), { minLength: 1, maxLength: 3 }).map((names) => names.join(','));

/** The query of a list request the contract accepts: any of its parameters, each once. */
function listQuery(attributes: string[], values: string[]): fc.Arbitrary<Record<string, string>> {
  return fc.record(
    {
      filter: filterText(attributes, values),
      startIndex: fc.integer({ min: -3, max: 40 }).map(String),
      count: fc.integer({ min: -3, max: 250 }).map(String),
      sortBy: fc.oneof({ arbitrary: fc.constantFrom(...attributes), weight: 4 }, { arbitrary: fc.string({ maxLength: 12 }), weight: 1 }),
      sortOrder: fc.constantFrom('ascending', 'descending'),
      attributes: attributeList(attributes),
      excludedAttributes: attributeList(attributes),
    },
    { requiredKeys: [] },
  );
}

/** A list query the contract refuses: a valid one with one parameter broken. */
function brokenListQuery(attributes: string[], values: string[]): fc.Arbitrary<{ broken: string; query: string }> {
  return fc
    .tuple(
      listQuery(attributes, values),
      fc.constantFrom(
        // Not '1e3' or '0x10': the validator reads those as the numbers they spell, as JavaScript does.
        ['startIndex', 'not a whole number', fc.constantFrom('one', '1.5', '')],
        ['count', 'not a whole number', fc.constantFrom('all', '2.5', '-')],
        ['sortOrder', 'outside the enum', fc.string({ maxLength: 10 }).filter((text) => !['ascending', 'descending'].includes(text))],
        ['filter', 'too long', fc.constant(`userName eq "${'x'.repeat(2_100)}"`)],
        ['unexpected', 'an undeclared parameter', fc.string({ maxLength: 8 })],
      ) as fc.Arbitrary<[string, string, fc.Arbitrary<string>]>,
    )
    .chain(([query, [name, broken, value]]) =>
      value.map((text) => ({ broken: `${name}: ${broken}`, query: `?${new URLSearchParams({ ...query, [name]: text }).toString()}` })),
    );
}

/** An undeclared query parameter, for the operations that take none or only a few. */
const undeclaredParameter = fc
  .tuple(fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme-ascii' }), fc.string({ maxLength: 12 }))
  .filter(([name]) => !['attributes', 'excludedAttributes'].includes(name))
  .map(([name, value]) => `?${encodeURIComponent(name)}=${encodeURIComponent(value)}`);

interface Pools {
  userIds: string[];
  usernames: string[];
  groupIds: string[];
  groupNames: string[];
}

/** Real users and groups, new for each operation, so that requests find what they name. */
async function poolsFor(fixtures: Fixtures, operation: OperationContract): Promise<Pools> {
  const users = await Promise.all(Array.from({ length: 6 }, () => fixtures.user()));
  const groups = [await fixtures.apiGroup(), await fixtures.apiGroup()];
  // The system group, too, where its protections are what answers; never one of a deployment's own groups.
  if (operation.path.startsWith('/Groups')) groups.push(await fixtures.systemGroup());
  return {
    userIds: users.map((user) => user.user_id),
    usernames: users.map((user) => user.username),
    groupIds: groups.map((group) => group.group_id),
    groupNames: groups.map((group) => group.name),
  };
}

const mixedWith =
  (real: fc.Arbitrary<string>, weight = 3) =>
  (fromSchema: fc.Arbitrary<unknown>) =>
    fc.oneof({ arbitrary: real, weight }, { arbitrary: fromSchema, weight: 1 }) as fc.Arbitrary<never>;

function overridesFor(fixtures: Fixtures, pools: Pools): Overrides {
  const memberId = fc.constantFrom(...pools.userIds);
  return {
    // A fresh name now and then, so that creates and renames succeed.
    userName: mixedWith(
      fc.oneof(
        fc.constantFrom(...pools.usernames),
        fc.constant(null).map(() => fixtures.username()),
      ),
      2,
    ),
    displayName: mixedWith(
      fc.oneof(
        fc.constantFrom(...pools.groupNames),
        fc.constant(null).map(() => fixtures.groupName()),
      ),
      2,
    ),
    // A member's id (GroupInput), or a PATCH's value naming members.
    value: mixedWith(
      fc.oneof(
        memberId,
        fc.array(
          memberId.map((id) => ({ value: id })),
          { minLength: 1, maxLength: 3 },
        ),
      ) as never,
      1,
    ),
    path: mixedWith(
      fc.constantFrom(
        'active',
        'userName',
        'name.givenName',
        'externalId',
        'emails',
        'emails[type eq "work"].value',
        'phoneNumbers[type eq "work"].value',
        'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:organization',
        'displayName',
        'members',
        ...pools.userIds.slice(0, 2).map((id) => `members[value eq "${id}"]`),
        'id',
        'meta.version',
        '__proto__.polluted',
        'constructor.prototype.polluted',
      ),
    ),
  };
}

export async function fuzzScim(session: FuzzSession): Promise<void> {
  const { fixtures } = session;
  const wrongCredentials = () => ({ ...fixtures.scimAuthorization(fixtures.wrongCredentials()), ...fixtures.failureClient() });
  /** The admin's token nine times in ten; else credentials no key has (a 401 or 429, both declared). */
  const authorization = fc.oneof(
    { arbitrary: fc.constant(null).map(() => fixtures.scimAuthorization()), weight: 9 },
    { arbitrary: fc.constant(null).map(wrongCredentials), weight: 1 },
  );
  /** No precondition mostly; now and then a version that is stale or any. */
  const ifMatch = fc.oneof(
    { arbitrary: fc.constant({}), weight: 6 },
    { arbitrary: fc.constantFrom({ 'If-Match': 'W/"0"' }, { 'If-Match': '*' }, { 'If-Match': 'W/"1"' }), weight: 1 },
  );

  for (const [index, operation] of SCIM_CONTRACT_OPERATIONS.entries()) {
    const label = `SCIM ${operation.operationId}`;
    if (!session.covers(label)) continue;
    session.operations++;
    const seed = session.options.seed + 100 + index;
    const pools = await poolsFor(fixtures, operation);
    await session.settle();
    const isGroup = operation.path.startsWith('/Groups');
    const ids = (operation.path.startsWith('/Users') ? pools.userIds : isGroup ? pools.groupIds : ['User', 'Group']).concat([]);
    const id = fc.oneof(
      { arbitrary: fc.constantFrom(...ids), weight: 3 },
      {
        arbitrary: fc.oneof(
          fc.constant(null).map(() => randomHex(16)),
          fc.constantFrom('urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:core:2.0:Group'),
        ),
        weight: 1,
      },
    );
    const pathOf = (resourceId: string) => `${operation.basePath}${operation.path.replace('{id}', encodeURIComponent(resourceId))}`;
    const exchange = (request: RawRequest, valid: boolean) => session.exchange(label, operation, request, valid, SCIM_DIALECT);
    const request = (resourceId: string, query: string, headers: Record<string, string>, body?: string): RawRequest => ({
      method: operation.httpMethod,
      path: `${pathOf(resourceId)}${query}`,
      headers: body === undefined ? headers : { 'Content-Type': operation.requestMediaType!, ...headers },
      ...(body === undefined ? {} : { body }),
    });

    if (operation.requestSchema) {
      const overrides = overridesFor(fixtures, pools);
      const schema = operation.requestSchema;
      const valid = validValue(schema, overrides).filter((body) => requestViolations(operation, body).length === 0);
      const invalid = invalidValue(schema, overrides).filter(
        (candidate) => candidate.raw !== undefined || requestViolations(operation, candidate.value).length > 0,
      );
      await session.check(
        label,
        'valid requests',
        fc.asyncProperty(id, valid, authorization, ifMatch, async (resourceId, body, headers, precondition) => {
          const sent = request(resourceId, '', { ...headers, ...precondition }, JSON.stringify(body));
          session.fail(await exchange(sent, true), { path: sent.path, body });
        }),
        seed,
      );
      await session.check(
        label,
        'invalid requests',
        fc.asyncProperty(id, invalid, authorization, async (resourceId, candidate, headers) => {
          const sent = request(resourceId, '', headers, candidate.raw ?? JSON.stringify(candidate.value));
          session.fail(await exchange(sent, false), { path: sent.path, broken: candidate.broken, body: candidate.raw ?? candidate.value });
        }),
        seed + 1_000,
      );
      continue;
    }

    const isList = operation.operationId === 'listUsers' || operation.operationId === 'listGroups';
    const attributes = isGroup ? GROUP_ATTRIBUTES : USER_ATTRIBUTES;
    const values = isGroup ? pools.groupNames : pools.usernames;
    const takesProjection = operation.operationId === 'getUser' || operation.operationId === 'getGroup';
    const validQuery: fc.Arbitrary<string> = isList
      ? listQuery(attributes, values).map((query) => (Object.keys(query).length ? `?${new URLSearchParams(query).toString()}` : ''))
      : takesProjection
        ? fc
            .record({ attributes: attributeList(attributes), excludedAttributes: attributeList(attributes) }, { requiredKeys: [] })
            .map((query) => (Object.keys(query).length ? `?${new URLSearchParams(query).toString()}` : ''))
        : fc.constant('');
    const invalidQuery: fc.Arbitrary<{ broken: string; query: string }> = isList
      ? brokenListQuery(attributes, values)
      : undeclaredParameter.map((query) => ({ broken: 'an undeclared parameter', query }));
    const precondition = operation.method === 'delete' ? ifMatch : fc.constant({});

    await session.check(
      label,
      'valid requests',
      fc.asyncProperty(id, validQuery, authorization, precondition, async (resourceId, query, headers, condition) => {
        const sent = request(resourceId, query, { ...headers, ...condition });
        session.fail(await exchange(sent, true), sent.path);
      }),
      seed,
    );
    await session.check(
      label,
      'invalid requests',
      fc.asyncProperty(id, invalidQuery, authorization, async (resourceId, { broken, query }, headers) => {
        const sent = request(resourceId, query, headers);
        session.fail(await exchange(sent, false), { path: sent.path, broken });
      }),
      seed + 1_000,
    );
  }
}
