import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { freePort } from '../lib/testing/ports.js';
import { startTestService, type TestService } from '../server/testing/service.js';
import { createWorkspaceClient, eachEvent, eachUser, pathOf, WorkspaceCallError, type WorkspaceClient } from './index.js';
import { PERMISSIONS } from '../lib/contract/operations.js';

describe('the TypeScript SDK against the real service', () => {
  let service: TestService;
  let sdk: WorkspaceClient;
  let engineering: { group_id: string };
  before(async () => {
    service = await startTestService();
    sdk = createWorkspaceClient({ baseUrl: service.baseUrl, ...service.admin });
    engineering = await service.createGroup({ name: 'Engineering' });
  });
  after(() => service.close());

  it('names each operation after its path', () => {
    assert.equal(pathOf('updateUser'), '/api/public/update_user');
    assert.equal(pathOf('validateCredentials'), '/api/public/validate_credentials');
    assert.equal(pathOf('removeUserGroup'), '/api/public/remove_user_group');
  });

  it('runs the whole lifecycle: validate, create, get, update, list, group add and remove, delete', async () => {
    const checked = await sdk.validateCredentials();
    assert.deepEqual(checked.data?.permissions, [...PERMISSIONS]);

    const created = await sdk.createUser({ target_user: { username: 'Ada@Example.com', first_name: 'Ada', password: 'Correct-Horse-42' } });
    assert.ok(created.data, JSON.stringify(created.error));
    const { user_id } = created.data.user;
    assert.equal(created.data.user.username, 'ada@example.com');

    const byName = await sdk.getUser({ target_user: { username: 'ada@example.com' } });
    assert.equal(byName.data?.user.user_id, user_id);

    const updated = await sdk.updateUser({ target_user: { user_id, last_name: 'Lovelace', locked: true } });
    assert.equal(updated.data?.user.last_name, 'Lovelace');
    assert.equal(updated.data?.user.first_name, 'Ada');
    assert.equal(updated.response?.status, 200);

    // The listing shows the user as changed (the page holds what other tests made too).
    const listed = await sdk.getUsers({ page_size: 100 });
    assert.equal(listed.data?.users.find((user) => user.user_id === user_id)?.last_name, 'Lovelace');

    const groups = await sdk.getGroups();
    assert.deepEqual(
      groups.data?.groups.map((group) => group.name),
      ['All Users', 'Engineering'],
    );
    assert.deepEqual((await sdk.addUserGroup({ target_user: { user_id }, target_group: { group_id: engineering.group_id } })).data, {});
    assert.deepEqual((await sdk.removeUserGroup({ target_user: { user_id }, target_group: { group_id: engineering.group_id } })).data, {});
    assert.deepEqual((await sdk.deleteUser({ target_user: { user_id } })).data, {});
    assert.equal((await sdk.getUser({ target_user: { user_id } })).error?.code, 'user_not_found');
    const history = await sdk.getAuditEvents({ target_user_id: user_id });
    assert.deepEqual(
      history.data?.events.map((event) => event.operation),
      ['deleteUser', 'removeUserGroup', 'addUserGroup', 'updateUser', 'createUser'],
    );
  });

  it('changes a user only at the version it read, with ifMatch and the etag of an answer', async () => {
    const created = await sdk.createUser({ target_user: { username: `if-match-${Date.now()}@example.com` } });
    assert.match(created.etag ?? '', /^W\/"[0-9]+"$/);
    const user_id = created.data!.user.user_id;
    const first = await sdk.updateUser({ target_user: { user_id, first_name: 'First' } }, { ifMatch: created.etag });
    assert.equal(first.data?.user.first_name, 'First');
    assert.notEqual(first.etag, created.etag);
    const stale = await sdk.updateUser({ target_user: { user_id, first_name: 'Lost' } }, { ifMatch: created.etag });
    assert.equal(stale.error?.code, 'version_mismatch');
    assert.equal(stale.response?.status, 412);
    assert.equal((await sdk.deleteUser({ target_user: { user_id } }, { ifMatch: created.etag })).error?.code, 'version_mismatch');
    assert.deepEqual((await sdk.deleteUser({ target_user: { user_id } }, { ifMatch: first.etag })).data, {});
  });

  it('returns the documented errors as typed error bodies, never throwing', async () => {
    const user = (await sdk.createUser({ target_user: { username: 'errors@example.com' } })).data!.user;
    const weak = await sdk.updateUser({ target_user: { user_id: user.user_id, password: 'weak' } });
    assert.equal(weak.error?.code, 'weak_password');
    assert.equal(weak.response?.status, 400);
    assert.equal((await sdk.updateUser({ target_user: { user_id: '0'.repeat(32) } })).error?.code, 'user_not_found');
    assert.equal((await sdk.createUser({ target_user: { username: 'ERRORS@example.com' } })).error?.code, 'username_taken');
    assert.equal(
      (await sdk.addUserGroup({ target_user: { user_id: user.user_id }, target_group: { group_id: '0'.repeat(32) } })).error?.code,
      'group_not_found',
    );
    assert.equal(
      (await sdk.removeUserGroup({ target_user: { user_id: user.user_id }, target_group: { group_id: engineering.group_id } })).error?.code,
      'not_member',
    );
    const wrong = await sdk.getGroups({ api_key_secret: 'wrong' });
    assert.equal(wrong.error?.code, 'invalid_credentials');
    assert.equal(wrong.response?.status, 401);
    const viewer = createWorkspaceClient({ baseUrl: service.baseUrl, ...(await service.createKey({ permissions: ['users_view'] })) });
    assert.equal((await viewer.deleteUser({ target_user: { user_id: user.user_id } })).error?.code, 'permission_denied');
  });

  it('goes through every user a page at a time with eachUser, and throws the error answer it meets', async () => {
    for (const name of ['kim', 'lou', 'max', 'ned', 'ora']) await service.createUser({ username: `${name}@each.example` });
    const whole = await sdk.getUsers({ sort_by: 'created', sort_direction: 'desc', page_size: 500 });
    const expected = whole.data!.users.map((user) => user.user_id);
    let requests = 0;
    const counting = createWorkspaceClient({
      baseUrl: service.baseUrl,
      ...service.admin,
      fetch: (request) => {
        requests += 1;
        return fetch(request);
      },
    });
    const seen: string[] = [];
    for await (const user of eachUser({ sort_by: 'created', sort_direction: 'desc', page_size: 2 }, { client: counting }))
      seen.push(user.user_id);
    assert.deepEqual(seen, expected);
    assert.equal(requests, Math.ceil(expected.length / 2));

    const wrong = createWorkspaceClient({ baseUrl: service.baseUrl, api_key: service.admin.api_key, api_key_secret: 'not-the-secret' });
    await assert.rejects(
      async () => {
        for await (const user of eachUser({}, { client: wrong })) assert.fail(`yielded ${user.user_id}`);
      },
      (error: unknown) => error instanceof WorkspaceCallError && error.error.code === 'invalid_credentials',
    );
  });

  it('follows the change feed with eachEvent: each new event once, on through a dropped connection, until aborted', async () => {
    let cursor: string | undefined;
    for (;;) {
      const page = await sdk.getEvents({ limit: 1000, ...(cursor ? { after: cursor } : {}) });
      cursor = page.data!.next_cursor;
      if (page.data!.events.length < 1000) break;
    }
    let dropped = 0;
    const flaky = createWorkspaceClient({
      baseUrl: service.baseUrl,
      ...service.admin,
      retry: false,
      // The first request of the feed gets no answer: the iterator tries again from its cursor.
      fetch: async (request) => {
        if (++dropped === 1) throw new TypeError('fetch failed', { cause: { code: 'ECONNRESET' } });
        return fetch(request);
      },
    });
    const stop = new AbortController();
    const seen: string[] = [];
    const following = (async () => {
      for await (const event of eachEvent({ after: cursor, types: ['user.created'] }, { client: flaky, signal: stop.signal })) {
        seen.push(event.data.resource.id);
        if (seen.length === 3) stop.abort();
      }
    })();
    const made: string[] = [];
    for (const name of ['pia', 'quin', 'rex']) made.push((await service.createUser({ username: `${name}@feed.example` })).user_id);
    await following;
    assert.deepEqual(seen, made);
    assert.ok(dropped >= 2, 'a request was dropped and the feed went on');

    const without = await service.createKey({ permissions: ['users_view'] });
    const refused = createWorkspaceClient({ baseUrl: service.baseUrl, ...without });
    await assert.rejects(
      async () => {
        for await (const event of eachEvent({}, { client: refused })) assert.fail(`yielded ${event.event_id}`);
      },
      (error: unknown) => error instanceof WorkspaceCallError && error.error.code === 'permission_denied',
    );
  });

  it('sends the credentials by HTTP Basic or in the api-key headers when asked, and in the body by default', async () => {
    const sent: { authorization: string | null; apiKey: string | null; body: Record<string, unknown> }[] = [];
    const recording = (credentialsIn?: 'body' | 'basic' | 'headers') =>
      createWorkspaceClient({
        baseUrl: service.baseUrl,
        ...service.admin,
        ...(credentialsIn ? { credentialsIn } : {}),
        fetch: async (request) => {
          sent.push({
            authorization: request.headers.get('authorization'),
            apiKey: request.headers.get('api-key'),
            body: JSON.parse(await request.clone().text()),
          });
          return fetch(request);
        },
      });
    const byHeader = await recording('basic').getUser({ target_user: { username: 'nobody@example.com' } });
    assert.equal(byHeader.error?.code, 'user_not_found', 'the service took the header');
    assert.equal(
      sent[0]!.authorization,
      `Basic ${Buffer.from(`${service.admin.api_key}:${service.admin.api_key_secret}`).toString('base64')}`,
    );
    assert.deepEqual(sent[0]!.body, { target_user: { username: 'nobody@example.com' } }, 'no credentials in the body');
    assert.ok((await recording('basic').validateCredentials()).data);

    const byKeyHeaders = await recording('headers').getUser({ target_user: { username: 'nobody@example.com' } });
    assert.equal(byKeyHeaders.error?.code, 'user_not_found', 'the service took the api-key headers');
    assert.deepEqual([sent.at(-1)!.apiKey, sent.at(-1)!.authorization], [service.admin.api_key, null]);
    assert.deepEqual(sent.at(-1)!.body, { target_user: { username: 'nobody@example.com' } }, 'no credentials in the body');

    await recording().getGroups();
    assert.equal(sent.at(-1)!.authorization, null);
    assert.equal(sent.at(-1)!.body.api_key_secret, service.admin.api_key_secret);
  });

  it('calls under a console session with credentialsIn session: the key and secret sent once, to signIn, then only the cookie and the CSRF token', async () => {
    // A browser's cookie jar, as far as this test needs one: the session cookie sign-in sets.
    let cookie: string | undefined;
    const sent: { path: string; body: string; headers: Headers }[] = [];
    const browserFetch = async (request: Request) => {
      const body = await request.clone().text();
      sent.push({ path: new URL(request.url).pathname, body, headers: request.headers });
      const withCookie = new Request(request, {
        headers: { ...Object.fromEntries(request.headers), ...(cookie ? { Cookie: cookie } : {}) },
      });
      const answer = await fetch(withCookie);
      cookie = answer.headers.get('set-cookie')?.split(';')[0] ?? cookie;
      return answer;
    };
    const held: { csrf?: string } = {};
    const browser = createWorkspaceClient({
      baseUrl: service.baseUrl,
      credentialsIn: 'session',
      csrfToken: () => held.csrf,
      fetch: browserFetch,
    });
    const signedIn = await browser.signIn({ ...service.admin });
    assert.ok(signedIn.data, JSON.stringify(signedIn.error));
    held.csrf = signedIn.data.csrf_token;
    const listed = await browser.getUsers({ page_size: 1 });
    assert.equal(listed.response?.status, 200, JSON.stringify(listed.error));
    const afterSignIn = sent.slice(1);
    assert.ok(afterSignIn.length > 0);
    for (const request of afterSignIn) {
      assert.ok(
        !request.body.includes(service.admin.api_key_secret) && !request.headers.has('authorization'),
        `${request.path} sends no secret`,
      );
      assert.equal(request.headers.get('x-csrf-token'), held.csrf);
    }
    assert.equal((await browser.signOut({})).response?.status, 200);
    assert.equal((await browser.getUsers({ page_size: 1 })).error?.code, 'session_ended');
  });

  it('uses an injected fetch for every request', async () => {
    const seen: string[] = [];
    const traced = createWorkspaceClient({
      baseUrl: service.baseUrl,
      ...service.admin,
      fetch: (request) => {
        seen.push(`${request.method} ${new URL(request.url).pathname}`);
        return fetch(request);
      },
    });
    assert.ok((await traced.getGroups()).data);
    assert.deepEqual(seen, ['POST /api/public/get_groups']);
  });

  it('reads the base URL and credentials from the environment when not given', async () => {
    const saved = { ...process.env };
    Object.assign(process.env, {
      WORKSPACE_URL: `${service.baseUrl}/`,
      WORKSPACE_API_KEY: service.admin.api_key,
      WORKSPACE_API_KEY_SECRET: service.admin.api_key_secret,
    });
    try {
      assert.equal((await createWorkspaceClient().validateCredentials()).data?.api_key, service.admin.api_key);
    } finally {
      process.env = saved;
    }
  });

  it('reports a missing key, an unreachable service and a timeout as clear failures, not exceptions', async () => {
    const saved = { ...process.env };
    delete process.env.WORKSPACE_API_KEY;
    delete process.env.WORKSPACE_API_KEY_SECRET;
    try {
      const unconfigured = await createWorkspaceClient({ baseUrl: service.baseUrl }).getGroups();
      assert.equal(unconfigured.error?.code, 'not_configured');
    } finally {
      process.env = saved;
    }

    const closedUrl = `http://127.0.0.1:${await freePort()}`;
    const unreachable = await createWorkspaceClient({ baseUrl: closedUrl, ...service.admin }).getGroups();
    assert.equal(unreachable.error?.code, 'network_error');
    assert.equal(unreachable.error?.error_message, `Cannot reach the workspace service at ${closedUrl}: ECONNREFUSED`);

    const stalled = await createWorkspaceClient({
      baseUrl: service.baseUrl,
      ...service.admin,
      timeoutMs: 50,
      fetch: (request) =>
        new Promise((_, reject) => request.signal.addEventListener('abort', () => reject(request.signal.reason as Error))),
    }).getGroups();
    assert.equal(stalled.error?.code, 'timeout');
    assert.match(stalled.error?.error_message ?? '', /within 50 ms/);
  });
});
