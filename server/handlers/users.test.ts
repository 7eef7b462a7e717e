import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyPassword } from '../password/hashing.js';
import { startTestService, type TestService } from '../testing/service.js';

describe('the user lifecycle', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  describe('create_user', () => {
    it('creates a user in "All Users" with normalised username and empty defaults', async () => {
      const answer = await service.callAsAdmin('create_user', { target_user: { username: '  Bob@Example.COM ', first_name: 'Bob' } });
      assert.equal(answer.status, 200, answer.text);
      const { user } = answer.body;
      assert.match(user.user_id, /^[0-9a-f]{32}$/);
      assert.equal(user.username, 'bob@example.com');
      assert.equal(user.first_name, 'Bob');
      assert.equal(user.last_name, '');
      assert.equal(user.locked, false);
      assert.equal(user.realm, 'local');
      assert.equal(user.password_set_date, null);
      assert.deepEqual(
        user.groups.map((group: { name: string }) => group.name),
        ['All Users'],
      );
      assert.ok(Math.abs(Date.parse(user.created) - Date.now()) < 60_000);
    });

    it('hashes the password it is given', async () => {
      const user = await service.createUser({ password: 'Correct-Horse-42' });
      assert.notEqual(user.password_set_date, null);
      assert.ok(await verifyPassword((await service.store.findPasswordHash(user.user_id))!, 'Correct-Horse-42'));
    });

    it('refuses a weak password and creates nothing', async () => {
      const answer = await service.callAsAdmin('create_user', { target_user: { username: 'weak@example.com', password: 'abc' } });
      assert.equal(answer.status, 400);
      assert.equal(answer.body.code, 'weak_password');
      assert.equal(await service.store.findUserByUsername('weak@example.com'), undefined);
    });

    it('refuses a username that differs from a taken one only in case and spaces', async () => {
      await service.createUser({ username: 'carol@example.com' });
      const answer = await service.callAsAdmin('create_user', { target_user: { username: ' CAROL@example.com' } });
      assert.equal(answer.status, 409);
      assert.equal(answer.body.code, 'username_taken');
    });

    it('refuses a blank username, one with inner spaces, and fields it does not know', async () => {
      for (const target_user of [{ username: '   ' }, { username: 'two words' }, { username: 'ok', user_id: 'a'.repeat(32) }, { username: 'ok', realm: 'ldap' }]) {
        const answer = await service.callAsAdmin('create_user', { target_user });
        assert.equal(answer.status, 400, JSON.stringify(target_user));
        assert.equal(answer.body.code, 'invalid_request');
      }
    });
  });

  describe('get_user', () => {
    it('finds a user by id and by username, in any case', async () => {
      const user = await service.createUser({ username: 'dave@example.com', first_name: 'Dave' });
      const byId = await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } });
      const byName = await service.callAsAdmin('get_user', { target_user: { username: ' Dave@Example.com' } });
      assert.equal(byId.status, 200);
      assert.deepEqual(byId.body.user, user);
      assert.deepEqual(byName.body.user, user);
    });

    it('answers 404 for an unknown user', async () => {
      const answer = await service.callAsAdmin('get_user', { target_user: { username: 'nobody@example.com' } });
      assert.equal(answer.status, 404);
      assert.equal(answer.body.code, 'user_not_found');
    });

    it('refuses a target_user with both or neither of user_id and username', async () => {
      for (const target_user of [{}, { user_id: 'a'.repeat(32), username: 'x' }]) {
        assert.equal((await service.callAsAdmin('get_user', { target_user })).status, 400);
      }
    });
  });

  describe('get_users', () => {
    let listing: TestService;
    before(async () => {
      listing = await startTestService();
      for (const [username, last_name] of [['c@x.io', 'Avery'], ['a@x.io', 'Cole'], ['b@x.io', 'Blake']]) {
        await listing.createUser({ username, last_name });
      }
    });
    after(() => listing.close());

    const usernames = (answer: { body: { users: { username: string }[] } }) => answer.body.users.map((user) => user.username);

    it('lists every user with the total, by username by default', async () => {
      const answer = await listing.callAsAdmin('get_users');
      assert.equal(answer.status, 200);
      assert.deepEqual(usernames(answer), ['a@x.io', 'b@x.io', 'c@x.io']);
      assert.equal(answer.body.total, 3);
      assert.equal(answer.body.page, 1);
      assert.equal(answer.body.page_size, 100);
    });

    it('sorts and pages as asked', async () => {
      // Last names: a@ Cole, b@ Blake, c@ Avery.
      const byLastName = await listing.callAsAdmin('get_users', { sort_by: 'last_name' });
      assert.deepEqual(usernames(byLastName), ['c@x.io', 'b@x.io', 'a@x.io']);
      const byLastNameDesc = await listing.callAsAdmin('get_users', { sort_by: 'last_name', sort_direction: 'desc' });
      assert.deepEqual(usernames(byLastNameDesc), ['a@x.io', 'b@x.io', 'c@x.io']);
      const page2 = await listing.callAsAdmin('get_users', { page: 2, page_size: 2 });
      assert.deepEqual(usernames(page2), ['c@x.io']);
      assert.equal(page2.body.total, 3);
      const beyond = await listing.callAsAdmin('get_users', { page: 5, page_size: 2 });
      assert.deepEqual(usernames(beyond), []);
    });

    it('bounds page_size and refuses unknown sort keys', async () => {
      for (const fields of [{ page_size: 501 }, { page_size: 0 }, { page: 0 }, { sort_by: 'password_hash' }, { sort_direction: 'up' }]) {
        const answer = await listing.callAsAdmin('get_users', fields);
        assert.equal(answer.status, 400, JSON.stringify(fields));
      }
    });
  });

  describe('delete_user', () => {
    it('deletes the user and their memberships; a second delete is 404', async () => {
      const user = await service.createUser();
      const first = await service.callAsAdmin('delete_user', { target_user: { user_id: user.user_id } });
      assert.equal(first.status, 200);
      assert.deepEqual(first.body, {});
      assert.equal(await service.store.findUserById(user.user_id), undefined);
      const again = await service.callAsAdmin('delete_user', { target_user: { user_id: user.user_id }, force: true });
      assert.equal(again.status, 404);
      assert.equal(again.body.code, 'user_not_found');
    });
  });
});
