/**
 * The audit trail, through the API: one event per change that succeeds, in the
 * change's own transaction; none for a change that fails; names, never values.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { PERMISSIONS } from '../../lib/contract/operations.js';
import type { AuditEvent } from '../store/records.js';
import { TEST_STORE } from '../testing/database.js';
import { type Answer, type PathName, startTestService, type TestService } from '../testing/service.js';

describe(`the audit trail (${TEST_STORE})`, () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  /** Every event, newest first, through the API. */
  async function events(filters: Record<string, unknown> = {}): Promise<AuditEvent[]> {
    const answer = await service.callAsAdmin('get_audit_events', { page_size: 500, ...filters });
    assert.equal(answer.status, 200, answer.text);
    return answer.body.events;
  }

  /** The events `change` wrote, asserting the answer it got. */
  async function eventsOf(change: () => Promise<Answer>, status = 200): Promise<{ answer: Answer; written: AuditEvent[] }> {
    const before = new Set((await events()).map((event) => event.event_id));
    const answer = await change();
    assert.equal(answer.status, status, answer.text);
    return { answer, written: (await events()).filter((event) => !before.has(event.event_id)) };
  }

  it('writes one event per change, naming the key, the request, the target and the fields, never a value', async () => {
    const created = await eventsOf(() =>
      service.callAsAdmin('create_user', { target_user: { username: 'ada@example.com', first_name: 'Ada', password: 'Correct-Horse-42' } }),
    );
    const userId = created.answer.body.user.user_id;
    assert.equal(created.written.length, 1);
    const [event] = created.written;
    assert.equal(event!.operation, 'createUser');
    assert.equal(event!.actor, service.admin.api_key);
    assert.equal(event!.request_id, created.answer.headers.get('x-request-id'));
    assert.equal(event!.target_user_id, userId);
    assert.equal(event!.target_group_id, null);
    assert.deepEqual(event!.changed_fields, ['username', 'first_name', 'password']);
    assert.ok(Math.abs(Date.parse(event!.time) - Date.now()) < 60_000);

    const updated = await eventsOf(() =>
      service.callAsAdmin('update_user', { target_user: { user_id: userId, last_name: 'Lovelace', password: 'Another-Horse-43' } }),
    );
    assert.deepEqual(
      updated.written.map((written) => [written.operation, written.target_user_id, written.changed_fields]),
      [['updateUser', userId, ['last_name', 'password']]],
    );

    const group = await service.store.groups.list().then((groups) => groups[0]!);
    const other = await service.createGroup({ name: 'Compliance' });
    const added = await eventsOf(() =>
      service.callAsAdmin('add_user_group', { target_user: { user_id: userId }, target_group: { group_id: other.group_id } }),
    );
    assert.deepEqual(
      added.written.map((written) => [written.operation, written.target_user_id, written.target_group_id, written.changed_fields]),
      [['addUserGroup', userId, other.group_id, []]],
    );
    const removed = await eventsOf(() =>
      service.callAsAdmin('remove_user_group', { target_user: { user_id: userId }, target_group: { group_id: other.group_id } }),
    );
    assert.deepEqual(
      removed.written.map((written) => written.operation),
      ['removeUserGroup'],
    );
    assert.ok(group.is_system);

    const deleted = await eventsOf(() => service.callAsAdmin('delete_user', { target_user: { user_id: userId } }));
    assert.deepEqual(
      deleted.written.map((written) => [written.operation, written.target_user_id, written.changed_fields]),
      [['deleteUser', userId, []]],
    );

    const history = await events({ target_user_id: userId });
    assert.deepEqual(
      history.map((written) => written.operation),
      ['deleteUser', 'removeUserGroup', 'addUserGroup', 'updateUser', 'createUser'],
      'newest first, the user deleted or not',
    );
  });

  it('writes nothing for a change that fails: 400, 404, 409', async () => {
    const taken = await service.createUser({ username: 'taken@example.com' });
    const other = await service.createUser();
    const failures: [PathName, () => Promise<Answer>, number][] = [
      ['create_user', () => service.callAsAdmin('create_user', { target_user: { username: 'weak@example.com', password: 'weak' } }), 400],
      ['create_user', () => service.callAsAdmin('create_user', { target_user: { username: 'TAKEN@example.com' } }), 409],
      [
        'update_user',
        () => service.callAsAdmin('update_user', { target_user: { user_id: other.user_id, username: 'taken@example.com' } }),
        409,
      ],
      ['update_user', () => service.callAsAdmin('update_user', { target_user: { user_id: '0'.repeat(32), first_name: 'Nobody' } }), 404],
      ['delete_user', () => service.callAsAdmin('delete_user', { target_user: { user_id: '0'.repeat(32) } }), 404],
      [
        'add_user_group',
        () =>
          service.callAsAdmin('add_user_group', { target_user: { user_id: taken.user_id }, target_group: { group_id: '0'.repeat(32) } }),
        404,
      ],
      [
        'remove_user_group',
        () =>
          service.callAsAdmin('remove_user_group', { target_user: { user_id: taken.user_id }, target_group: { group_id: '0'.repeat(32) } }),
        404,
      ],
    ];
    for (const [operation, send, status] of failures) {
      const { written } = await eventsOf(send, status);
      assert.deepEqual(written, [], `${operation} answered ${status} and wrote an event`);
    }
  });

  it('writes neither the change nor its event when the database fails between the two', async () => {
    const user = await service.createUser({ first_name: 'Before' });
    const inspection = service.inspection;
    // A fault at the event's insert, after the update itself succeeded in the same transaction.
    if (TEST_STORE === 'sqlite') {
      await inspection.execute(sql`create trigger audit_fault before insert on audit_events
        when new.target_user_id = ${sql.lit(user.user_id)} begin select raise(abort, 'injected fault'); end`);
    } else {
      await inspection.execute(sql`create function audit_fault() returns trigger language plpgsql as
        $$ begin if new.target_user_id = ${sql.lit(user.user_id)} then raise exception 'injected fault'; end if; return new; end $$`);
      await inspection.execute(sql`create trigger audit_fault before insert on audit_events for each row execute function audit_fault()`);
    }
    try {
      const { written } = await eventsOf(
        () => service.callAsAdmin('update_user', { target_user: { user_id: user.user_id, first_name: 'After' } }),
        500,
      );
      assert.deepEqual(written, []);
      assert.equal(
        (await service.store.users.findById(user.user_id))?.record.first_name,
        'Before',
        'the change was rolled back with its event',
      );
    } finally {
      await inspection.execute(sql`drop trigger audit_fault${TEST_STORE === 'postgres' ? sql` on audit_events` : sql``}`);
    }
  });

  it('keeps no password, hash, secret or profile value in any event', async () => {
    const secrets = {
      password: 'Zebra-Quartz-9931!',
      newPassword: 'Ocelot-Vapor-7714?',
      username: 'secret-name-4417@example.com',
      first_name: 'Wilhelmina8812',
      last_name: 'Featherstonehaugh5521',
      phone: '555-867-5309',
      organization: 'Umbrella-Holdings-7319',
    };
    const created = await service.callAsAdmin('create_user', {
      target_user: {
        username: secrets.username,
        first_name: secrets.first_name,
        last_name: secrets.last_name,
        phone: secrets.phone,
        organization: secrets.organization,
        password: secrets.password,
      },
    });
    const userId = created.body.user.user_id;
    await service.callAsAdmin('update_user', { target_user: { user_id: userId, password: secrets.newPassword, phone: '555-000-1111' } });
    const stored = JSON.stringify(await service.inspection.rows('audit_events'));
    const hash = (await service.inspection.passwordHash(userId))!;
    for (const value of [...Object.values(secrets), '555-000-1111', hash, service.admin.api_key_secret]) {
      assert.ok(!stored.includes(value), `an audit event holds ${value}`);
    }
  });

  it('pages newest first by cursor, and filters by key, by kind of change and by time', async () => {
    const limited = await service.createKey({ permissions: ['users_create', 'audit_view'] });
    const made: string[] = [];
    for (let index = 0; index < 5; index++) {
      const answer = await service.call('create_user', { ...limited, target_user: { username: `paged${index}@example.com` } });
      made.unshift(answer.body.user.user_id);
    }
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const answer: Answer = await service.call('get_audit_events', {
        ...limited,
        actor: limited.api_key,
        page_size: 2,
        ...(cursor ? { cursor } : {}),
      });
      assert.equal(answer.status, 200, answer.text);
      pages.push(answer.body.events.map((event: AuditEvent) => event.target_user_id));
      cursor = answer.body.next_cursor;
    } while (cursor);
    assert.deepEqual(pages, [made.slice(0, 2), made.slice(2, 4), made.slice(4)]);

    // By kind of change: the key's creations, and none of its deletions (it made none).
    const created = await service.call('get_audit_events', { ...limited, actor: limited.api_key, operation: 'createUser' });
    assert.deepEqual(
      created.body.events.map((event: AuditEvent) => event.target_user_id),
      made,
    );
    const deleted = await service.call('get_audit_events', { ...limited, actor: limited.api_key, operation: 'deleteUser' });
    assert.deepEqual(deleted.body.events, []);

    const future = await service.callAsAdmin('get_audit_events', { since: new Date(Date.now() + 60_000).toISOString() });
    assert.deepEqual(future.body, { events: [], next_cursor: null });
    const past = await service.callAsAdmin('get_audit_events', { actor: limited.api_key, until: '2000-01-01T00:00:00+01:00' });
    assert.deepEqual(past.body.events, []);
    const withOffset = await service.callAsAdmin('get_audit_events', { actor: limited.api_key, since: '2000-01-01T00:00:00+01:00' });
    assert.equal(withOffset.body.events.length, 5);

    // Only times on the calendar: an hour past 23, a 30th of February and a leap second are each a 400 naming the field.
    for (const [field, time] of [
      ['since', '2026-11-24T25:00:00Z'],
      ['until', '2026-11-24T24:30:00Z'],
      ['since', '2026-02-30T00:00:00Z'],
      ['until', '2026-12-31T23:59:60Z'],
    ] as const) {
      const refused = await service.callAsAdmin('get_audit_events', { [field]: time });
      assert.equal(refused.status, 400, `${time}: ${refused.text}`);
      assert.equal(refused.body.code, 'invalid_request');
      assert.equal(refused.body.errors[0].path, `/body/${field}`, refused.text);
    }

    const forged = await service.callAsAdmin('get_audit_events', { cursor: Buffer.from('not an event').toString('base64url') });
    assert.equal(forged.status, 400);
    assert.equal(forged.body.code, 'invalid_cursor');
  });

  it('needs audit_view, which keys made before it existed do not have', async () => {
    const before = await service.createKey({ permissions: PERMISSIONS.filter((permission) => permission !== 'audit_view') });
    const refused = await service.call('get_audit_events', { ...before });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'permission_denied');
    assert.match(refused.body.error_message, /audit_view/);
  });
});
