/**
 * SCIM Users over HTTP: create, read, replace, PATCH, delete and list, the
 * same users the workspace API sees, under the same rules.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../testing/service.js';
import { type ScimClient, freshUserName, scimClient } from '../testing/scim-client.js';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

describe('SCIM Users', () => {
  let service: TestService;
  let scim: ScimClient;
  before(async () => {
    service = await startTestService();
    scim = scimClient(service);
  });
  after(() => service.close());

  it('creates a user with 201, Location and ETag, which the workspace API then shows', async () => {
    const userName = freshUserName();
    const created = await scim('POST', '/Users', {
      schemas: [USER, ENTERPRISE],
      userName,
      externalId: 'okta-00u1',
      name: { givenName: 'Ada', familyName: 'Lovelace' },
      emails: [{ value: userName, type: 'work', primary: true }],
      phoneNumbers: [{ value: '+44 20 7946 0000', type: 'work' }],
      [ENTERPRISE]: { organization: 'Engines' },
      active: true,
      title: 'Not kept',
    });
    assert.equal(created.status, 201, created.text);
    assert.match(created.headers.get('Content-Type') ?? '', /^application\/scim\+json/);
    assert.equal(created.headers.get('Location'), created.body.meta.location);
    assert.equal(created.headers.get('ETag'), created.body.meta.version);
    assert.equal(created.body.userName, userName);
    assert.equal(created.body.externalId, 'okta-00u1');
    assert.deepEqual(
      created.body.groups.map((group: { display: string }) => group.display),
      ['All Users'],
    );

    const seen = await service.callAsAdmin('get_user', { target_user: { user_id: created.body.id } });
    assert.equal(seen.status, 200);
    assert.equal(seen.body.user.first_name, 'Ada');
    assert.equal(seen.body.user.phone, '+44 20 7946 0000');
    assert.equal(seen.body.user.organization, 'Engines');
    assert.equal(seen.headers.get('ETag'), created.headers.get('ETag'), 'one version, whichever protocol reads it');
  });

  it('deactivates with PATCH as Entra ID sends it, and the workspace API sees the user disabled', async () => {
    const user = await service.createUser();
    const patched = await scim('PATCH', `/Users/${user.user_id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.active, false);
    const seen = await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } });
    assert.equal(seen.body.user.disabled, true);
  });

  it('reads a user with its ETag, and leaves out what attributes and excludedAttributes say', async () => {
    const user = await service.createUser({ first_name: 'Grace' });
    const read = await scim('GET', `/Users/${user.user_id}`);
    assert.equal(read.status, 200, read.text);
    assert.equal(read.headers.get('ETag'), read.body.meta.version);
    const only = await scim('GET', `/Users/${user.user_id}?attributes=userName,name.givenName`);
    assert.deepEqual(Object.keys(only.body).sort(), ['id', 'name', 'schemas', 'userName']);
    assert.deepEqual(only.body.name, { givenName: 'Grace' });
    const without = await scim('GET', `/Users/${user.user_id}?excludedAttributes=groups,meta,id`);
    assert.equal(without.body.groups, undefined);
    assert.equal(without.body.meta, undefined);
    assert.equal(without.body.id, user.user_id, 'id is always returned');
    assert.equal((await scim('GET', '/Users/00000000000000000000000000000000')).status, 404);
  });

  it('replaces with PUT as Okta does: what is left out is cleared, active stays, and nothing written when nothing changes', async () => {
    const user = await service.createUser({ first_name: 'Old', last_name: 'Name', phone: '555' });
    const before = await scim('GET', `/Users/${user.user_id}`);
    const same = await scim('PUT', `/Users/${user.user_id}`, { ...before.body });
    assert.equal(same.status, 200, same.text);
    assert.equal(same.headers.get('ETag'), before.headers.get('ETag'), 'a replacement by the same user changes no version');
    const replaced = await scim('PUT', `/Users/${user.user_id}`, { schemas: [USER], userName: user.username, name: { givenName: 'New' } });
    assert.equal(replaced.status, 200, replaced.text);
    assert.notEqual(replaced.headers.get('ETag'), before.headers.get('ETag'));
    const seen = await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } });
    assert.equal(seen.body.user.first_name, 'New');
    assert.equal(seen.body.user.last_name, '', 'left out, so cleared');
    assert.equal(seen.body.user.phone, '');
    assert.equal(seen.body.user.disabled, false, 'active left out stays');
  });

  it("applies Okta's PATCH without a path, value filters on emails, and the enterprise extension's path", async () => {
    const created = await scim('POST', '/Users', {
      schemas: [USER],
      userName: freshUserName(),
      emails: [
        { value: 'home@example.com', type: 'home' },
        { value: 'old@example.com', type: 'work', primary: true },
      ],
    });
    const patched = await scim('PATCH', `/Users/${created.body.id}`, {
      schemas: [PATCH_OP],
      Operations: [
        { op: 'replace', value: { active: false, name: { givenName: 'Pat' } } },
        { op: 'replace', path: 'emails[type eq "work"].value', value: 'new@example.com' },
        { op: 'add', path: `${ENTERPRISE}:organization`, value: 'Okta Org' },
      ],
    });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.active, false);
    assert.equal(patched.body.name.givenName, 'Pat');
    assert.deepEqual(
      patched.body.emails.map((email: { value: string }) => email.value),
      ['home@example.com', 'new@example.com'],
    );
    assert.equal(patched.body[ENTERPRISE].organization, 'Okta Org');
    const events = await service.callAsAdmin('get_audit_events', { target_user_id: created.body.id });
    const update = events.body.events.find((event: { operation: string }) => event.operation === 'updateUser');
    assert.equal(update.protocol, 'scim', 'the audit trail names the protocol');
    assert.deepEqual(
      [...update.changed_fields].sort(),
      ['disabled', 'emails', 'first_name', 'organization'],
      'and only the fields that changed',
    );
  });

  it('refuses a PATCH it cannot apply with the scimType that says why, and changes nothing', async () => {
    const user = await service.createUser({ first_name: 'Kept' });
    const cases: [unknown, number, string][] = [
      [{ schemas: [PATCH_OP], Operations: [{ op: 'remove' }] }, 400, 'noTarget'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'emails[type eq "work"].value' }] }, 400, 'invalidValue'],
      // A body the contract accepts is never invalidSyntax: a remove with a value it cannot match is a value refused.
      [{ schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'active', value: 'x' }] }, 400, 'invalidValue'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'id', value: 'x' }] }, 400, 'mutability'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: 'maybe' }] }, 400, 'invalidValue'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'move', path: 'active' }] }, 400, 'invalidValue'],
      // Without a path, only an object of attributes: the resource is never replaced by nothing or by a string.
      [{ schemas: [PATCH_OP], Operations: [{ op: 'replace' }] }, 400, 'invalidValue'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'add', value: 'str' }] }, 400, 'invalidValue'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'password', value: 'weak' }] }, 400, 'invalidValue'],
      // A value of the wrong type for its path (RFC 7644, 3.12): a complex attribute is an object, never cleared by a string.
      [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'name', value: 'str' }] }, 400, 'invalidValue'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'name', value: ['Ada'] }] }, 400, 'invalidValue'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', value: { name: 'str' } }] }, 400, 'invalidValue'],
      [
        {
          schemas: [PATCH_OP],
          Operations: [{ op: 'replace', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User', value: 7 }],
        },
        400,
        'invalidValue',
      ],
      // Read-only attributes, whatever the op: a User's groups change through the Group.
      [{ schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'groups', value: [{ value: '0'.repeat(32) }] }] }, 400, 'mutability'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'groups' }] }, 400, 'mutability'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'Groups[value eq "x"].display', value: 'x' }] }, 400, 'mutability'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'meta.lastModified' }] }, 400, 'mutability'],
      // Paths into JavaScript's objects: the patch library would have set `polluted` on every object of the process.
      [{ schemas: [PATCH_OP], Operations: [{ op: 'add', path: '__proto__.polluted', value: 'yes' }] }, 400, 'invalidPath'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'constructor.prototype.polluted', value: 'yes' }] }, 400, 'invalidPath'],
      [{ schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'name.__proto__.polluted', value: 'yes' }] }, 400, 'invalidPath'],
    ];
    for (const [body, status, scimType] of cases) {
      const answer = await scim('PATCH', `/Users/${user.user_id}`, body);
      assert.equal(answer.status, status, `${JSON.stringify(body)}: ${answer.text}`);
      assert.equal(answer.body.scimType, scimType, JSON.stringify(body));
      assert.deepEqual(answer.body.schemas, ['urn:ietf:params:scim:api:messages:2.0:Error']);
      assert.equal(answer.body.status, String(status));
    }
    const seen = await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } });
    assert.equal(seen.body.user.first_name, 'Kept');
    assert.equal(({} as { polluted?: unknown }).polluted, undefined, 'no PATCH reached Object.prototype');
  });

  it('holds SCIM to the same rules: the username profile and password policy (invalidValue), a taken userName (uniqueness)', async () => {
    const taken = await service.createUser();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ userName: taken.username }, 409, 'uniqueness'],
      [{ userName: taken.username.toUpperCase() }, 409, 'uniqueness'],
      [{ userName: 'has space' }, 400, 'invalidValue'],
      [{ userName: freshUserName(), password: 'short' }, 400, 'invalidValue'],
      [{ name: { givenName: 'No userName' } }, 400, 'invalidValue'],
    ];
    for (const [body, status, scimType] of cases) {
      const answer = await scim('POST', '/Users', { schemas: [USER], ...body });
      assert.equal(answer.status, status, `${JSON.stringify(body)}: ${answer.text}`);
      assert.equal(answer.body.scimType, scimType, JSON.stringify(body));
      assert.doesNotMatch(answer.text, /short/, 'a password never comes back');
    }
    const withPassword = await scim('POST', '/Users', { schemas: [USER], userName: freshUserName(), password: 'Str0ng!Passw0rd' });
    assert.equal(withPassword.status, 201, withPassword.text);
    assert.equal(withPassword.body.password, undefined);
  });

  it('honours If-Match on PUT, PATCH and DELETE: 412 versionMismatch on a stale version, and the write with the current one', async () => {
    const user = await service.createUser();
    const read = await scim('GET', `/Users/${user.user_id}`);
    const tag = read.headers.get('ETag')!;
    const deactivate = { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] };
    const first = await scim('PATCH', `/Users/${user.user_id}`, deactivate, { 'If-Match': tag });
    assert.equal(first.status, 200, first.text);
    for (const [method, body] of [
      ['PATCH', deactivate],
      ['PUT', { schemas: [USER], userName: user.username }],
      ['DELETE', undefined],
    ] as const) {
      const stale = await scim(method, `/Users/${user.user_id}`, body, { 'If-Match': tag });
      assert.equal(stale.status, 412, `${method}: ${stale.text}`);
      assert.equal(stale.body.scimType, 'versionMismatch');
      // If-None-Match: * asks that the resource not exist (RFC 9110, 13.1.2): it does.
      const exists = await scim(method, `/Users/${user.user_id}`, body, { 'If-None-Match': '*' });
      assert.equal(exists.status, 412, `${method} If-None-Match: ${exists.text}`);
      assert.equal(exists.body.scimType, 'versionMismatch');
    }
    const absent = await scim('PATCH', `/Users/${'0'.repeat(32)}`, deactivate, { 'If-None-Match': '*' });
    assert.equal(absent.status, 404, absent.text);
    const deleted = await scim('DELETE', `/Users/${user.user_id}`, undefined, { 'If-Match': first.headers.get('ETag')! });
    assert.equal(deleted.status, 204, deleted.text);
    assert.equal(deleted.text, '');
    assert.equal((await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } })).status, 404);
  });

  it('sees a change made through the workspace API at once, with the version it made', async () => {
    const user = await service.createUser();
    const updated = await service.callAsAdmin('update_user', { target_user: { user_id: user.user_id, last_name: 'Viaworkspace' } });
    const read = await scim('GET', `/Users/${user.user_id}`);
    assert.equal(read.body.name.familyName, 'Viaworkspace');
    assert.equal(read.headers.get('ETag'), updated.headers.get('ETag'));
  });

  it('loses no change when PATCHes without If-Match race: each is applied on the version it read, or read again', async () => {
    // Every racer reads the user before any writes: they all read one version, so all but one
    // lose the race at the store and must read again. Without the version check, only the
    // last write would keep its address.
    const racers = 4;
    const raced = await serviceWhereReadsMeet(racers);
    try {
      const client = scimClient(raced);
      const created = await client('POST', '/Users', { schemas: [USER], userName: freshUserName(), emails: [] });
      const id = created.body.id as string;
      const addresses = Array.from({ length: racers }, (_, index) => `racer${index}@example.com`);
      const answers = await Promise.all(
        addresses.map((value) =>
          client('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'emails', value: [{ value }] }] }),
        ),
      );
      for (const answer of answers) assert.equal(answer.status, 200, answer.text);
      const read = await client('GET', `/Users/${id}`);
      assert.deepEqual(read.body.emails.map((email: { value: string }) => email.value).sort(), addresses, 'every PATCH kept');
      assert.equal(read.body.meta.version, `W/"${1 + racers}"`, 'one version per PATCH');
    } finally {
      await raced.close();
    }
  });

  it('lets exactly one of two PATCHes with the same If-Match through, read at the same version, and answers the other 412', async () => {
    const raced = await serviceWhereReadsMeet(2);
    try {
      const client = scimClient(raced);
      const created = await client('POST', '/Users', { schemas: [USER], userName: freshUserName() });
      const tag = created.headers.get('ETag')!;
      const answers = await Promise.all(
        ['First', 'Second'].map((givenName) =>
          client(
            'PATCH',
            `/Users/${created.body.id as string}`,
            { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'name.givenName', value: givenName }] },
            { 'If-Match': tag },
          ),
        ),
      );
      assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 412], answers.map((answer) => answer.text).join('\n'));
      const lost = answers.find((answer) => answer.status === 412)!;
      assert.equal(lost.body.scimType, 'versionMismatch');
      const won = answers.find((answer) => answer.status === 200)!;
      const read = await client('GET', `/Users/${created.body.id as string}`);
      assert.equal(read.body.name.givenName, won.body.name.givenName, 'the store holds the write that was answered 200');
      assert.equal(read.body.meta.version, 'W/"2"', 'one write, one version');
    } finally {
      await raced.close();
    }
  });
});

/**
 * A service whose first `count` reads of a user before a rewrite each wait until the last of
 * them has read: so that `count` concurrent writers all read one version before any writes.
 */
async function serviceWhereReadsMeet(count: number): Promise<TestService> {
  let arrived = 0;
  let release!: () => void;
  const allRead = new Promise<void>((resolve) => (release = resolve));
  return startTestService({
    wrapStore: (store) => {
      const findFieldsById = store.users.findFieldsById.bind(store.users);
      store.users.findFieldsById = async (userId) => {
        const found = await findFieldsById(userId);
        if (++arrived === count) release();
        if (arrived <= count) await allRead;
        return found;
      };
      return store;
    },
  });
}
