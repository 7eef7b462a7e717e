/**
 * SCIM as a protocol: credentials (a bearer token, HTTP Basic), discovery,
 * listing with filters and paging as Okta and Entra ID look users up, and
 * SCIM's error shape and media type on every failure under /scim/v2.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../testing/service.js';
import { type ScimClient, bearerToken, freshUserName, scimClient } from '../testing/scim-client.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

describe('SCIM protocol', () => {
  let service: TestService;
  let scim: ScimClient;
  before(async () => {
    service = await startTestService();
    scim = scimClient(service);
  });
  after(() => service.close());

  const assertScimError = (answer: { status: number; headers: Headers; body: any; text: string }, status: number, scimType: string) => {
    assert.equal(answer.status, status, answer.text);
    assert.match(answer.headers.get('Content-Type') ?? '', /^application\/scim\+json/);
    assert.deepEqual(answer.body.schemas, [ERROR]);
    assert.equal(answer.body.status, String(status));
    assert.equal(answer.body.scimType, scimType, answer.text);
    assert.equal(typeof answer.body.detail, 'string');
  };

  it('takes the key as a bearer token (id.secret) or by HTTP Basic, and refuses anything else with 401', async () => {
    const { api_key, api_key_secret } = service.admin;
    const basic = `Basic ${Buffer.from(`${api_key}:${api_key_secret}`).toString('base64')}`;
    for (const authorization of [bearerToken(service.admin), `bearer ${api_key}.${api_key_secret}`, basic]) {
      const answer = await service.request('/scim/v2/ServiceProviderConfig', { headers: { Authorization: authorization } });
      assert.equal(answer.status, 200, `${authorization.split(' ')[0]}: ${answer.text}`);
    }
    for (const authorization of [undefined, `Bearer ${api_key}.wrong`, `Bearer ${api_key}`, `Bearer ${api_key_secret}`, 'Bearer']) {
      const answer = await service.request('/scim/v2/Users', {
        headers: authorization === undefined ? {} : { Authorization: authorization },
      });
      assertScimError(answer, 401, 'invalidCredentials');
      assert.match(answer.headers.get('WWW-Authenticate') ?? '', /Bearer/);
      assert.doesNotMatch(answer.text, new RegExp(api_key_secret), 'the secret is never echoed');
    }
    // Where SCIM never takes them (a body lands in providers' and proxies' request logs; the api-key headers are Kasm's).
    const inTheBody = await service.request('/scim/v2/Users', {
      method: 'POST',
      headers: { 'Content-Type': 'application/scim+json' },
      body: JSON.stringify({ schemas: [USER], userName: freshUserName(), api_key, api_key_secret }),
    });
    assertScimError(inTheBody, 401, 'invalidCredentials');
    const inKasmHeaders = await service.request('/scim/v2/Users', { headers: { 'api-key': api_key, 'api-key-secret': api_key_secret } });
    assertScimError(inKasmHeaders, 401, 'invalidCredentials');
  });

  it("needs the operation's permission: a key that may only view users lists them and is refused a create (403)", async () => {
    const viewer = scimClient(service, await service.createKey({ permissions: ['users_view'] }));
    assert.equal((await viewer('GET', '/Users?count=1')).status, 200);
    assertScimError(await viewer('POST', '/Users', { schemas: [USER], userName: freshUserName() }), 403, 'permissionDenied');
    assertScimError(await viewer('GET', '/Groups'), 403, 'permissionDenied');
  });

  it("shows what links users and groups only to a key that may view the other kind: members' usernames, users' group names", async () => {
    const user = await service.createUser();
    const group = await service.createGroup();
    await service.callAsAdmin('add_user_group', { target_user: { user_id: user.user_id }, target_group: { group_id: group.group_id } });
    const membersOf = async (client: ScimClient) =>
      (await client('GET', `/Groups/${group.group_id}?attributes=members`)).body.members as { value: string; display?: string }[];
    const groupsOf = async (client: ScimClient) =>
      (await client('GET', `/Users/${user.user_id}?attributes=groups`)).body.groups as { value: string; display?: string }[];

    const groupViewer = scimClient(service, await service.createKey({ permissions: ['groups_view'] }));
    assert.deepEqual(await membersOf(groupViewer), [
      { value: user.user_id, type: 'User', $ref: `${service.baseUrl}/scim/v2/Users/${user.user_id}` },
    ]);
    const listed = await groupViewer('GET', `/Groups?filter=${encodeURIComponent(`id eq "${group.group_id}"`)}`);
    assert.doesNotMatch(listed.text, new RegExp(user.username), 'nor in a listing');
    const userViewer = scimClient(service, await service.createKey({ permissions: ['users_view'] }));
    const seenGroups = await groupsOf(userViewer);
    assert.ok(seenGroups.some((membership) => membership.value === group.group_id));
    assert.ok(
      seenGroups.every((membership) => !('display' in membership)),
      'a key without groups_view sees groups by id',
    );
    // A key that may view both sees both.
    assert.equal((await membersOf(scim)).find((member) => member.value === user.user_id)?.display, user.username);
    assert.equal((await groupsOf(scim)).find((membership) => membership.value === group.group_id)?.display, group.name);
  });

  it('reads attribute names in any case (RFC 7643, 2.1): bodies, PATCH paths and values, filters and attributes', async () => {
    const userName = freshUserName('case');
    const created = await scim('POST', '/Users', {
      SCHEMAS: [USER],
      UserName: userName,
      Name: { GivenName: 'Ada', FAMILYNAME: 'Lovelace' },
      Emails: [{ Value: 'ada@example.com', Type: 'work', Primary: true }],
      'URN:IETF:PARAMS:SCIM:SCHEMAS:EXTENSION:ENTERPRISE:2.0:USER': { Organization: 'Analytical Engines' },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(created.body.name, { givenName: 'Ada', familyName: 'Lovelace', formatted: 'Ada Lovelace' });
    assert.deepEqual(created.body.emails, [{ value: 'ada@example.com', type: 'work', primary: true }], 'Microsoft’s "Primary" kept');
    assert.equal(created.body['urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'].organization, 'Analytical Engines');

    const patched = await scim('PATCH', `/Users/${created.body.id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [
        { op: 'Replace', path: 'Name.GivenName', value: 'Augusta' },
        { op: 'Replace', path: 'EMAILS[TYPE eq "work"].VALUE', value: 'augusta@example.com' },
        { op: 'Replace', value: { Active: false } },
      ],
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.name.givenName, 'Augusta');
    assert.equal(patched.body.emails[0].value, 'augusta@example.com');
    assert.equal(patched.body.active, false);

    const found = await scim('GET', `/Users?filter=${encodeURIComponent(`USERNAME EQ "${userName}"`)}&attributes=USERNAME,NAME.GIVENNAME`);
    assert.equal(found.status, 200, found.text);
    assert.deepEqual(
      { userName: found.body.Resources[0]?.userName, name: found.body.Resources[0]?.name },
      { userName, name: { givenName: 'Augusta' } },
    );
    // docs/scim.md lists what is filterable: emails are not, and the answer says which attribute.
    const byEmail = await scim('GET', `/Users?filter=${encodeURIComponent('emails.value eq "augusta@example.com"')}`);
    assertScimError(byEmail, 400, 'invalidFilter');
    assert.match(byEmail.body.detail, /emails/);
    const twice = await scim('POST', '/Users', { schemas: [USER], userName: freshUserName(), USERNAME: freshUserName() });
    assertScimError(twice, 400, 'invalidValue');
  });

  it('holds a password to the same screening as the workspace API: a common one and the user’s own name refused', async () => {
    const common = await scim('POST', '/Users', { schemas: [USER], userName: freshUserName(), password: 'P@ssw0rd123' });
    assertScimError(common, 400, 'invalidValue');
    assert.match(common.body.detail, /commonly used password/);
    const named = await scim('POST', '/Users', {
      schemas: [USER],
      userName: freshUserName(),
      name: { familyName: 'Wexbury' },
      password: 'Wexbury-1815!',
    });
    assertScimError(named, 400, 'invalidValue');
    assert.match(named.body.detail, /last name/);
    const userName = freshUserName();
    const kept = await scim('POST', '/Users', { schemas: [USER], userName, password: 'Trqmvz-Alpha-1' });
    const setPassword = (value: string) =>
      scim('PATCH', `/Users/${kept.body.id}`, {
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'password', value }],
      });
    // A provider restating the current password (Okta's replacements may carry it) changes nothing, and is no reuse.
    const restated = await scim('PUT', `/Users/${kept.body.id}`, { schemas: [USER], userName, password: 'Trqmvz-Alpha-1' });
    assert.equal(restated.status, 200, restated.text);
    assert.equal(restated.headers.get('etag'), kept.headers.get('etag'), 'nothing was written');
    assert.equal((await setPassword('Trqmvz-Beta-2')).status, 200);
    const reused = await setPassword('Trqmvz-Alpha-1');
    assertScimError(reused, 400, 'invalidValue');
    assert.match(reused.body.detail, /last 5 passwords/);
  });

  it('describes itself: the configuration, the two resource types and the three schemas', async () => {
    const config = await scim('GET', '/ServiceProviderConfig');
    assert.equal(config.body.patch.supported, true);
    assert.equal(config.body.etag.supported, true);
    assert.equal(config.body.filter.maxResults, 200);
    const types = await scim('GET', '/ResourceTypes');
    assert.deepEqual(
      types.body.Resources.map((type: { id: string }) => type.id),
      ['User', 'Group'],
    );
    assert.equal((await scim('GET', '/ResourceTypes/User')).body.endpoint, '/Users');
    const schemas = await scim('GET', '/Schemas');
    assert.equal(schemas.body.totalResults, 3);
    const user = await scim('GET', `/Schemas/${USER}`);
    const userName = user.body.attributes.find((attribute: { name: string }) => attribute.name === 'userName');
    assert.equal(userName.uniqueness, 'server');
    assertScimError(await scim('GET', '/Schemas/urn:unknown'), 404, 'notFound');
  });

  it('finds a user as Entra ID does before creating one (userName eq, any case), and pages as Okta does', async () => {
    const userName = freshUserName('lookup');
    await scim('POST', '/Users', { schemas: [USER], userName });
    const filter = encodeURIComponent(`userName eq "${userName.toUpperCase()}"`);
    const found = await scim('GET', `/Users?filter=${filter}`);
    assert.equal(found.status, 200, found.text);
    assert.equal(found.body.totalResults, 1);
    assert.equal(found.body.Resources[0].userName, userName);
    assert.equal(found.body.startIndex, 1);
    assert.equal(found.body.itemsPerPage, 1);
    const none = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "nobody@example.com"')}`);
    assert.deepEqual({ total: none.body.totalResults, resources: none.body.Resources }, { total: 0, resources: [] });

    for (let index = 0; index < 3; index++) await scim('POST', '/Users', { schemas: [USER], userName: freshUserName('page') });
    const everyone = (await scim('GET', '/Users?startIndex=1&count=100&sortBy=userName')).body;
    const [first, second] = [
      await scim('GET', '/Users?startIndex=1&count=2&sortBy=userName'),
      await scim('GET', '/Users?startIndex=3&count=2&sortBy=userName'),
    ];
    assert.equal(first.body.totalResults, everyone.totalResults);
    assert.deepEqual(
      [...first.body.Resources, ...second.body.Resources].map((user: { id: string }) => user.id),
      everyone.Resources.slice(0, 4).map((user: { id: string }) => user.id),
      'pages follow each other without a gap or a repeat',
    );
    const counted = await scim('GET', '/Users?count=0&startIndex=0');
    assert.deepEqual([counted.body.itemsPerPage, counted.body.startIndex], [0, 1], 'count 0 only counts; startIndex below 1 is 1');
    const descending = (await scim('GET', '/Users?sortBy=userName&sortOrder=descending&count=200')).body.Resources.map(
      (user: { userName: string }) => user.userName,
    );
    assert.deepEqual(descending, [...descending].sort().reverse());
  });

  it('refuses what it cannot run with the scimType that says why', async () => {
    assertScimError(await scim('GET', `/Users?filter=${encodeURIComponent('userName eq')}`), 400, 'invalidFilter');
    assertScimError(await scim('GET', `/Users?filter=${encodeURIComponent('nickName eq "x"')}`), 400, 'invalidFilter');
    // Names every JavaScript object has are no attributes either (`__proto__ pr` was a 500 the fuzz found).
    assertScimError(await scim('GET', `/Users?filter=${encodeURIComponent('__proto__ pr')}`), 400, 'invalidFilter');
    assertScimError(await scim('GET', `/Groups?filter=${encodeURIComponent('constructor[value eq "x"]')}`), 400, 'invalidFilter');
    // A value is a JSON string: a bad escape is named, in the filter's words, never the parser's.
    const badEscape = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "\\q"')}`);
    assertScimError(badEscape, 400, 'invalidFilter');
    assert.match(badEscape.body.detail, /\\q, which is no escape/);
    const unclosed = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "\\"(Quoted)')}`);
    assertScimError(unclosed, 400, 'invalidFilter');
    assert.doesNotMatch(unclosed.body.detail, /json/i, 'nothing of the parser inside');
    assertScimError(await scim('GET', '/Users?sortBy=nickName'), 400, 'invalidValue');
    assertScimError(await scim('GET', '/Users?count=many'), 400, 'invalidValue');
    // Past the largest whole number a JSON number holds exactly: refused, not read as the first page.
    assertScimError(await scim('GET', '/Users?startIndex=99999999999999999999999'), 400, 'invalidValue');
    assertScimError(await scim('GET', '/Users?count=99999999999999999999999'), 400, 'invalidValue');
    const belowZero = await scim('GET', '/Users?count=-99999999999999999999999&startIndex=-99999999999999999999999');
    assert.deepEqual([belowZero.body.itemsPerPage, belowZero.body.startIndex], [0, 1], 'far below counts as 0 and 1');
    assertScimError(await scim('GET', '/Users?unknown=1'), 400, 'invalidValue');
    const twice = `filter=${encodeURIComponent('userName eq "a"')}&filter=${encodeURIComponent('userName eq "b"')}`;
    assertScimError(await scim('GET', `/Users?${twice}`), 400, 'invalidValue');
    assertScimError(await scim('GET', '/Nothing'), 404, 'notFound');
    // Another spelling of a route is no route, and its 404 no undeclared answer of the operation it resembles.
    assertScimError(await scim('GET', '/Users/'), 404, 'notFound');
    assertScimError(await scim('GET', '//Groups'), 404, 'notFound');
    assertScimError(await scim('DELETE', '/Users'), 405, 'methodNotAllowed');
    const notJson = await service.request('/scim/v2/Users', {
      method: 'POST',
      headers: { Authorization: bearerToken(service.admin), 'Content-Type': 'application/scim+json' },
      body: '{"userName": ',
    });
    assertScimError(notJson, 400, 'invalidSyntax');
    const text = await service.request('/scim/v2/Users', {
      method: 'POST',
      headers: { Authorization: bearerToken(service.admin), 'Content-Type': 'text/plain' },
      body: 'userName=x',
    });
    assertScimError(text, 415, 'unsupportedMediaType');
    const tooLarge = await scim('POST', '/Users', { schemas: [USER], userName: freshUserName(), padding: 'x'.repeat(40_000) });
    assertScimError(tooLarge, 413, 'tooLarge');
  });

  it("takes application/json too, and leaves the workspace API's own answers as they were", async () => {
    const asJson = await scim('POST', '/Users', { schemas: [USER], userName: freshUserName() }, { 'Content-Type': 'application/json' });
    assert.equal(asJson.status, 201, asJson.text);
    const workspace = await service.request('/api/public/get_groups', {
      method: 'POST',
      headers: { 'Content-Type': 'application/scim+json' },
      body: JSON.stringify(service.admin),
    });
    assert.equal(workspace.status, 415, workspace.text);
    assert.equal(workspace.body.code, 'unsupported_media_type', 'the workspace API answers in its own shape');
  });
});
