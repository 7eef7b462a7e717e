import { kasmMembers } from '../testing/error-bodies.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../testing/service.js';

describe('versions: ETag on what shows a user, If-Match on what changes one', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  /** POSTs an operation as the admin, with an If-Match header when given one. */
  const conditionally = (operation: 'update_user' | 'delete_user', ifMatch: string | undefined, target_user: Record<string, unknown>) =>
    service.request(`/api/public/${operation}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(ifMatch === undefined ? {} : { 'If-Match': ifMatch }) },
      body: JSON.stringify({ ...service.admin, target_user }),
    });

  it('sends the same ETag from create_user, get_user and update_user, and a new one after each change', async () => {
    const created = await service.callAsAdmin('create_user', { target_user: { username: `etag-${Date.now()}@example.com` } });
    const tag = created.headers.get('ETag');
    assert.match(tag ?? '', /^W\/"[0-9]+"$/);
    const read = await service.callAsAdmin('get_user', { target_user: { user_id: created.body.user.user_id } });
    assert.equal(read.headers.get('ETag'), tag, 'reading changes nothing');
    const updated = await service.callAsAdmin('update_user', { target_user: { user_id: created.body.user.user_id, first_name: 'New' } });
    assert.notEqual(updated.headers.get('ETag'), tag);
    const joined = await service.callAsAdmin('logout_user', { target_user: { user_id: created.body.user.user_id } });
    assert.equal(joined.status, 200);
    const after = await service.callAsAdmin('get_user', { target_user: { username: created.body.user.username } });
    assert.notEqual(after.headers.get('ETag'), updated.headers.get('ETag'), 'a logout is a change too');
  });

  it('names no version on answers that show no single user', async () => {
    for (const operation of ['get_groups', 'get_users'] as const) {
      assert.equal((await service.callAsAdmin(operation)).headers.get('ETag'), null, operation);
    }
  });

  it('updates at the version If-Match names (weak or strong, one of several, or *), and refuses another with 412', async () => {
    const user = await service.createUser({ first_name: 'Start' });
    const current = (await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } })).headers.get('ETag')!;
    const strong = current.replace(/^W\//, '');

    const first = await conditionally('update_user', strong, { user_id: user.user_id, first_name: 'First' });
    assert.equal(first.status, 200, first.text);
    const stale = await conditionally('update_user', current, { user_id: user.user_id, first_name: 'Lost' });
    assert.equal(stale.status, 412, stale.text);
    assert.deepEqual(kasmMembers(stale.body), {
      code: 'version_mismatch',
      error_message: `The user is not at the version If-Match names; it is now at ${first.headers.get('ETag')}`,
    });
    const listed = await conditionally('update_user', `"other", ${current}, ${first.headers.get('ETag')}`, {
      user_id: user.user_id,
      first_name: 'Second',
    });
    assert.equal(listed.status, 200, 'one of the tags names the current version');
    assert.equal((await conditionally('update_user', '*', { user_id: user.user_id, first_name: 'Any' })).status, 200);
    const stored = await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } });
    assert.equal(stored.body.user.first_name, 'Any', 'the refused update changed nothing');
  });

  it('refuses a stale If-Match before spending time on a new password, and changes nothing', async () => {
    const user = await service.createUser();
    const stale = await conditionally('update_user', 'W/"999999"', { user_id: user.user_id, password: 'Correct-Horse-42' });
    assert.equal(stale.status, 412);
    assert.equal((await service.inspection.rows('users')).find((row) => row.user_id === user.user_id)?.password_hash, null);
  });

  it('deletes only at the version If-Match names', async () => {
    const user = await service.createUser();
    const tag = (await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } })).headers.get('ETag')!;
    await service.callAsAdmin('update_user', { target_user: { user_id: user.user_id, last_name: 'Changed' } });
    assert.equal((await conditionally('delete_user', tag, { user_id: user.user_id })).status, 412);
    assert.equal((await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } })).status, 200, 'still there');
    const now = (await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } })).headers.get('ETag')!;
    assert.equal((await conditionally('delete_user', now, { user_id: user.user_id })).status, 200);
    assert.equal((await conditionally('delete_user', now, { user_id: user.user_id })).body.code, 'user_not_found', 'gone is 404, not 412');
  });

  it('lets exactly one of several writers that read the same version write', async () => {
    const user = await service.createUser();
    const tag = (await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } })).headers.get('ETag')!;
    const answers = await Promise.all(
      ['A', 'B', 'C', 'D'].map((first_name) => conditionally('update_user', tag, { user_id: user.user_id, first_name })),
    );
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [200, 412, 412, 412]);
  });

  it('refuses an If-Match that is not a list of entity tags with 400', async () => {
    const user = await service.createUser();
    for (const header of ['7', 'W/7', '"7', '']) {
      const answer = await conditionally('update_user', header, { user_id: user.user_id, first_name: 'x' });
      assert.equal(answer.status, 400, `If-Match: ${header}`);
      assert.equal(answer.body.code, 'invalid_request');
    }
  });

  it('behaves exactly as before without If-Match: the last write wins', async () => {
    const user = await service.createUser();
    const answers = await Promise.all(
      ['A', 'B'].map((first_name) => conditionally('update_user', undefined, { user_id: user.user_id, first_name })),
    );
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200],
    );
  });
});
