/**
 * The console's sessions on the wire: the cookie a sign-in sets and how, the
 * CSRF token every request under it but get_session needs, the key's own
 * permissions, and the 401 session_ended that sends a console back to sign-in
 * once the session is over (signed out, its key revoked). The rules of time are
 * tested on a clock in server/keys/console-sessions.integration.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Credentials } from '../../lib/contract/credentials.js';
import { startTestService, type TestService } from '../testing/service.js';

describe('console sessions on the wire', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ trustProxy: 'loopback' });
  });
  after(() => service.close());

  /** POSTs as a browser under a session does: the cookie, and the CSRF token when given. */
  const asBrowser = (operation: string, cookie: string, csrf?: string, body: unknown = {}) =>
    service.request(`/api/public/${operation}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: cookie, ...(csrf ? { 'X-CSRF-Token': csrf } : {}) },
      body: JSON.stringify(body),
    });

  const signIn = async (credentials: Credentials, headers: Record<string, string> = {}) => {
    const answer = await service.request('/api/public/sign_in', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify(credentials),
    });
    assert.equal(answer.status, 200, answer.text);
    const setCookie = answer.headers.get('set-cookie') ?? '';
    return { answer, setCookie, cookie: setCookie.split(';')[0]!, csrf: answer.body.csrf_token as string };
  };

  it('signs in once with the key and secret, and the session then acts as the key with its CSRF token', async () => {
    const { answer, setCookie, cookie, csrf } = await signIn(service.admin);
    assert.match(setCookie, /^workspace_session=[A-Za-z0-9_-]{43}; Path=\/; Expires=[^;]+; HttpOnly; SameSite=Strict$/);
    assert.ok(!answer.text.includes(service.admin.api_key_secret), 'the secret is never answered');
    assert.deepEqual([answer.body.key.api_key, answer.body.idle_timeout_seconds], [service.admin.api_key, 1800]);

    const again = await asBrowser('get_session', cookie);
    assert.deepEqual([again.status, again.body.csrf_token], [200, csrf], 'get_session needs no CSRF token, and gives it back');
    const listed = await asBrowser('get_users', cookie, csrf, { page_size: 1 });
    assert.equal(listed.status, 200, listed.text);
    const made = await asBrowser('create_user', cookie, csrf, { target_user: { username: 'made-in-console@example.com' } });
    assert.equal(made.status, 200, made.text);
    const { events } = (await service.callAsAdmin('get_audit_events', { page_size: 1 })).body;
    assert.equal(events[0].actor, service.admin.api_key, "a change under a session is the key's, in the audit trail");
  });

  it('refuses a request under a session without its CSRF token, a write changing nothing', async () => {
    const { cookie, csrf } = await signIn(service.admin);
    for (const token of [undefined, 'not-the-token', csrf.slice(0, -1)]) {
      const refused = await asBrowser('create_user', cookie, token, { target_user: { username: 'forged@example.com' } });
      assert.deepEqual([refused.status, refused.body.code], [403, 'invalid_csrf_token']);
    }
    const found = await service.callAsAdmin('get_user', { target_user: { username: 'forged@example.com' } });
    assert.equal(found.status, 404, 'nothing was created');
    const read = await asBrowser('get_users', cookie, undefined, { page_size: 1 });
    assert.deepEqual([read.status, read.body.code], [403, 'invalid_csrf_token'], 'reads need it too: only get_session does not');
  });

  it("holds the session to its key's permissions", async () => {
    const viewer = await service.createKey({ permissions: ['users_view'] });
    const { cookie, csrf } = await signIn(viewer);
    assert.equal((await asBrowser('get_users', cookie, csrf, { page_size: 1 })).status, 200);
    const write = await asBrowser('create_user', cookie, csrf, { target_user: { username: 'viewer-wrote@example.com' } });
    assert.deepEqual([write.status, write.body.code], [403, 'permission_denied']);
  });

  it('ends at sign-out and when its key is revoked: 401 session_ended, and the cookie cleared', async () => {
    const { cookie, csrf } = await signIn(service.admin);
    const out = await asBrowser('sign_out', cookie, csrf);
    assert.equal(out.status, 200, out.text);
    assert.match(
      out.headers.get('set-cookie') ?? '',
      /^workspace_session=; Path=\/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Strict$/,
    );
    const after = await asBrowser('get_session', cookie);
    assert.deepEqual([after.status, after.body.code], [401, 'session_ended']);
    assert.match(after.headers.get('set-cookie') ?? '', /^workspace_session=;/);

    const key = await service.createKey({ permissions: ['users_view', 'keys_manage'] });
    const session = await signIn(key);
    await service.callAsAdmin('revoke_api_key', { target_api_key: { api_key: key.api_key } });
    const revoked = await asBrowser('get_users', session.cookie, session.csrf, { page_size: 1 });
    assert.deepEqual([revoked.status, revoked.body.code], [401, 'session_ended']);
  });

  it('names the cookie __Host- and makes it Secure over TLS, and reads credentials a program sends before any cookie', async () => {
    const secure = await signIn(service.admin, { 'X-Forwarded-Proto': 'https' });
    assert.match(
      secure.setCookie,
      /^__Host-workspace_session=[A-Za-z0-9_-]{43}; Path=\/; Expires=[^;]+; HttpOnly; Secure; SameSite=Strict$/,
    );
    const viewer = await service.createKey({ permissions: ['users_view'] });
    const { cookie } = await signIn(viewer);
    // The viewer's cookie rides along, but the request carries the admin's key: the key is what it means.
    const made = await service.request('/api/public/create_user', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Cookie: cookie },
      body: JSON.stringify({ ...service.admin, target_user: { username: 'by-the-key@example.com' } }),
    });
    assert.equal(made.status, 200, made.text);
    const sessionOnly = await asBrowser('get_session', `workspace_session=${'x'.repeat(43)}`);
    assert.deepEqual([sessionOnly.status, sessionOnly.body.code], [401, 'session_ended'], 'a token no session has');
    const noCookie = await service.send('get_session', { ...service.admin });
    assert.deepEqual([noCookie.status, noCookie.body.code], [401, 'invalid_credentials'], 'get_session takes only the cookie');
  });
});
