/**
 * get_events on the wire: every door's changes in the one feed (this API,
 * SCIM, the admin command), the events_view permission, and the feed's
 * refusals in the contract's error shape. The feed's rules themselves are
 * tested where they live (server/directory/change-feed.integration.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { admin } from '../testing/admin.js';
import { scimClient } from '../testing/scim-client.js';
import { startTestService, type TestService } from '../testing/service.js';

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

interface WireEvent {
  event_id: string;
  type: string;
  data: { resource: { type: string; id: string; version: number | null }; changed: string[]; actor: { type: string; id: string | null } };
}

describe('get_events', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  /** The cursor past every event so far. */
  async function head(): Promise<string> {
    let cursor: string | undefined;
    for (;;) {
      const answer = await service.callAsAdmin('get_events', { limit: 1000, ...(cursor ? { after: cursor } : {}) });
      assert.equal(answer.status, 200, answer.text);
      cursor = answer.body.next_cursor;
      if (answer.body.events.length < 1000) return cursor!;
    }
  }

  it("tells the changes of every door: this API's, SCIM's and the admin command's, each with its actor", async () => {
    const start = await head();
    const user = await service.createUser({ first_name: 'Ada' });
    const renamed = await service.callAsAdmin('update_user', { target_user: { user_id: user.user_id, last_name: 'Lovelace' } });
    assert.equal(renamed.status, 200, renamed.text);
    const deactivated = await scimClient(service)('PATCH', `/Users/${user.user_id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'active', value: false }],
    });
    assert.equal(deactivated.status, 200, deactivated.text);
    const group = await admin(service.databaseUrl, ['create-group', '--name', `Feed ${process.pid}`]);
    assert.equal(group.code, 0, group.stderr);
    const groupId = JSON.parse(group.stdout).group_id as string;

    const answer = await service.callAsAdmin('get_events', { after: start });
    assert.equal(answer.status, 200, answer.text);
    const events = answer.body.events as WireEvent[];
    const mine = events.filter((event) => event.data.resource.id === user.user_id || event.data.resource.id === groupId);
    assert.deepEqual(
      mine.map((event) => [event.type, event.data.changed, event.data.actor]),
      [
        ['user.created', ['username', 'first_name'], { type: 'api_key', id: service.admin.api_key }],
        ['user.updated', ['last_name'], { type: 'api_key', id: service.admin.api_key }],
        ['user.updated', ['disabled'], { type: 'scim', id: service.admin.api_key }],
        ['group.created', ['name', 'priority'], { type: 'admin', id: null }],
      ],
    );
    assert.equal(mine[2]!.data.resource.version, Number(/\d+/.exec(deactivated.headers.get('ETag')!)![0]), 'the version its ETag shows');
  });

  it('is for keys with events_view only', async () => {
    const without = await service.createKey({ permissions: ['users_view', 'audit_view'] });
    const answer = await service.call('get_events', { ...without });
    assert.equal(answer.status, 403, answer.text);
    assert.equal(answer.body.code, 'permission_denied');
  });

  it('answers a cursor it did not hand out with 400, and one older than the feed reaches with 410 cursor_expired', async () => {
    const forged = await service.callAsAdmin('get_events', { after: Buffer.from('not a cursor').toString('base64url') });
    assert.equal(forged.status, 400, forged.text);
    assert.deepEqual([forged.body.code, forged.body.errors[0].path], ['invalid_cursor', '/body/after']);
    // A place from long ago: read up to 1 January 1970.
    const old = await service.callAsAdmin('get_events', { after: Buffer.from('1.1000').toString('base64url') });
    assert.equal(old.status, 410, old.text);
    assert.equal(old.body.code, 'cursor_expired');
    assert.match(old.body.error_message, /get_users/);
  });
});
