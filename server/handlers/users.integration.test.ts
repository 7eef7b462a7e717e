import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyPassword } from '../testing/passwords.js';
import { TEST_SETUP } from '../testing/test-setup.js';
import { startTestService, type TestService } from '../testing/service.js';

describe('the user lifecycle', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  describe('the password rules the contract cannot state', () => {
    it("refuses the user's own name as a password, whatever its case, on create and on update (then against the new name)", async () => {
      const created = await service.callAsAdmin('create_user', {
        target_user: { username: 'Dana.Scully1@example.com', password: 'dana.scully1@Example.com' },
      });
      assert.equal(created.status, 400, created.text);
      assert.deepEqual([created.body.code, created.body.errors[0].path], ['weak_password', '/body/target_user/password']);
      assert.match(created.body.error_message, /not contain the username/);

      const user = await service.createUser({ username: 'fox.mulder1@example.com' });
      const same = await service.callAsAdmin('update_user', {
        target_user: { user_id: user.user_id, password: 'Fox.Mulder1@example.com' },
      });
      assert.equal(same.body.code, 'weak_password', same.text);
      const renamed = await service.callAsAdmin('update_user', {
        target_user: { user_id: user.user_id, username: 'Walter-S1', password: 'walter-S1' },
      });
      assert.equal(renamed.body.code, 'weak_password', renamed.text);
      const fine = await service.callAsAdmin('update_user', { target_user: { user_id: user.user_id, password: 'Correct-Horse-42' } });
      assert.equal(fine.status, 200, fine.text);
    });

    it('counts the 8-character minimum as a person sees the characters', async () => {
      const answer = await service.callAsAdmin('create_user', {
        target_user: { username: 'accents@example.com', password: 'aA1!\u0301\u0301\u0301\u0301' },
      });
      assert.equal(answer.status, 400, answer.text);
      assert.equal(answer.body.code, 'weak_password');
      assert.match(answer.body.error_message, /at least 8 characters/);
    });
  });

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
      assert.ok(await verifyPassword((await service.inspection.passwordHash(user.user_id))!, 'Correct-Horse-42'));
    });

    it('refuses a weak password and creates nothing', async () => {
      const answer = await service.callAsAdmin('create_user', { target_user: { username: 'weak@example.com', password: 'abc' } });
      assert.equal(answer.status, 400);
      assert.equal(answer.body.code, 'weak_password');
      assert.equal(await service.store.users.findByUsername('weak@example.com'), undefined);
    });

    it('refuses a username that differs from a taken one only in case and spaces', async () => {
      await service.createUser({ username: 'carol@example.com' });
      const answer = await service.callAsAdmin('create_user', { target_user: { username: ' CAROL@example.com' } });
      assert.equal(answer.status, 409);
      assert.equal(answer.body.code, 'username_taken');
    });

    it('refuses a blank username, one with inner spaces, and fields it does not know', async () => {
      for (const [target_user, code] of [
        [{ username: '   ' }, 'invalid_username'],
        [{ username: 'two words' }, 'invalid_username'],
        [{ username: 'ok', user_id: 'a'.repeat(32) }, 'invalid_request'],
        [{ username: 'ok', realm: 'ldap' }, 'invalid_request'],
      ] as const) {
        const answer = await service.sendAsAdmin('create_user', { target_user });
        assert.equal(answer.status, 400, JSON.stringify(target_user));
        assert.equal(answer.body.code, code, JSON.stringify(target_user));
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

    it("names a user's groups only to a key that may view groups, on every answer that shows a user", async () => {
      const user = await service.createUser();
      const key = await service.createKey({ permissions: ['users_view', 'users_modify'] });
      const ids = user.groups.map(({ group_id }) => ({ group_id }));
      const read = await service.call('get_user', { ...key, target_user: { user_id: user.user_id } });
      assert.deepEqual(read.body.user.groups, ids, read.text);
      const updated = await service.call('update_user', { ...key, target_user: { user_id: user.user_id, first_name: 'Seen' } });
      assert.deepEqual(updated.body.user.groups, ids, updated.text);
      const everyone = await service.call('get_users', { ...key });
      assert.deepEqual(everyone.body.users.find((listed: { user_id: string }) => listed.user_id === user.user_id).groups, ids);
      const page = await service.call('get_users', { ...key, page_size: 500 });
      assert.deepEqual(page.body.users.find((listed: { user_id: string }) => listed.user_id === user.user_id).groups, ids);
      assert.ok(
        (await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } })).body.user.groups.every(
          (group: { name?: string }) => typeof group.name === 'string',
        ),
        'a key with groups_view sees the names',
      );
    });

    it('answers 404 for an unknown user', async () => {
      const answer = await service.callAsAdmin('get_user', { target_user: { username: 'nobody@example.com' } });
      assert.equal(answer.status, 404);
      assert.equal(answer.body.code, 'user_not_found');
    });

    it('takes both ids as Kasm does: user_id wins, an empty one counts as absent; neither is 400', async () => {
      const user = await service.createUser({ username: 'both@example.com' });
      const other = await service.createUser({ username: 'other@example.com' });
      for (const target_user of [
        { user_id: user.user_id, username: other.username },
        { user_id: user.user_id, username: '' },
        { user_id: '', username: user.username },
      ]) {
        const answer = await service.callAsAdmin('get_user', { target_user });
        assert.equal(answer.status, 200, `${JSON.stringify(target_user)}: ${answer.text}`);
        assert.equal(answer.body.user.user_id, user.user_id, JSON.stringify(target_user));
      }
      for (const target_user of [{}, { user_id: '', username: '' }, { user_id: '' }, { username: '' }]) {
        const answer = await service.sendAsAdmin('get_user', { target_user });
        assert.equal(answer.status, 400, JSON.stringify(target_user));
        assert.equal(answer.body.code, 'invalid_request');
      }
    });

    it('finds a user by its id in the dashed UUID form, in either case, and answers the 32-digit form everywhere', async () => {
      const user = await service.createUser({ username: 'dashed@example.com' });
      const hex = user.user_id;
      const dashed = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      for (const user_id of [dashed, dashed.toUpperCase(), hex.toUpperCase()]) {
        const found = await service.callAsAdmin('get_user', { target_user: { user_id } });
        assert.equal(found.body.user?.user_id, hex, `${user_id}: ${found.text}`);
      }
      const updated = await service.callAsAdmin('update_user', { target_user: { user_id: dashed, first_name: 'Dashed' } });
      assert.deepEqual([updated.status, updated.body.user.user_id, updated.body.user.first_name], [200, hex, 'Dashed']);
      const group = await service.store.groups.create({ group_id: 'd'.repeat(32), name: 'Dashed' }, TEST_SETUP);
      const groupDashed = `${'D'.repeat(8)}-${'d'.repeat(4)}-${'d'.repeat(4)}-${'d'.repeat(4)}-${'d'.repeat(12)}`;
      const added = await service.callAsAdmin('add_user_group', {
        target_user: { user_id: dashed },
        target_group: { group_id: groupDashed },
      });
      assert.equal(added.status, 200, added.text);
      const member = await service.callAsAdmin('get_user', { target_user: { user_id: hex } });
      assert.ok(member.body.user.groups.some((membership: { group_id: string }) => membership.group_id === group.group_id));
      const events = await service.callAsAdmin('get_audit_events', { target_user_id: dashed });
      assert.ok(
        events.body.events.length >= 2 && events.body.events.every((event: { target_user_id: string }) => event.target_user_id === hex),
      );
      for (const user_id of [`${dashed}-`, `{${dashed}}`, hex.slice(1), `${hex.slice(0, 8)}-${hex.slice(8)}`]) {
        assert.equal((await service.callAsAdmin('get_user', { target_user: { user_id } })).status, 400, user_id);
      }
      const deleted = await service.callAsAdmin('delete_user', { target_user: { user_id: dashed.toUpperCase() } });
      assert.equal(deleted.status, 200, deleted.text);
    });
  });

  describe('get_users', () => {
    let listing: TestService;
    before(async () => {
      listing = await startTestService();
      for (const [username, last_name] of [
        ['c@x.io', 'Avery'],
        ['a@x.io', 'Cole'],
        ['b@x.io', 'Blake'],
      ]) {
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
      assert.equal(answer.body.next_cursor, null);
      assert.equal(answer.body.page, undefined, 'no page was asked for');
      const firstPage = await listing.callAsAdmin('get_users', { page: 0 });
      assert.deepEqual([firstPage.body.page, firstPage.body.page_size, firstPage.body.total], [0, 100, 3], 'a page has the default size');
    });

    it('sorts and pages as asked', async () => {
      // Last names: a@ Cole, b@ Blake, c@ Avery.
      const byLastName = await listing.callAsAdmin('get_users', { sort_by: 'last_name' });
      assert.deepEqual(usernames(byLastName), ['c@x.io', 'b@x.io', 'a@x.io']);
      const byLastNameDesc = await listing.callAsAdmin('get_users', { sort_by: 'last_name', sort_direction: 'desc' });
      assert.deepEqual(usernames(byLastNameDesc), ['a@x.io', 'b@x.io', 'c@x.io']);
      // Pages count from 0, as Kasm's do (the Terraform provider asks for page 0 first).
      const first = await listing.callAsAdmin('get_users', { page: 0, page_size: 2 });
      assert.deepEqual(usernames(first), ['a@x.io', 'b@x.io']);
      const second = await listing.callAsAdmin('get_users', { page: 1, page_size: 2 });
      assert.deepEqual(usernames(second), ['c@x.io']);
      assert.equal(second.body.total, 3);
      const beyond = await listing.callAsAdmin('get_users', { page: 5, page_size: 2 });
      assert.deepEqual(usernames(beyond), []);
    });

    it('bounds page_size and refuses unknown sort keys', async () => {
      for (const fields of [{ page_size: 501 }, { page_size: 0 }, { page: -1 }, { sort_by: 'password_hash' }, { sort_direction: 'up' }]) {
        const answer = await listing.sendAsAdmin('get_users', fields);
        assert.equal(answer.status, 400, JSON.stringify(fields));
      }
    });
  });

  describe('get_users by cursor', () => {
    let directory: TestService;
    before(async () => {
      directory = await startTestService();
      // Ties on purpose: three Smiths and two Jones, created in an order unlike any sort.
      const people = [
        ['smith', 'Mia'],
        ['jones', 'Ann'],
        ['smith', 'Zoe'],
        ['avery', 'Kim'],
        ['smith', 'Ann'],
        ['jones', 'Lee'],
        ['baker', 'Ann'],
      ];
      for (const [index, [last_name, first_name]] of people.entries()) {
        await directory.createUser({ username: `u${(index * 5) % 7}@x.io`, last_name, first_name });
      }
    });
    after(() => directory.close());

    type Page = {
      status: number;
      text: string;
      body: { users: { user_id: string; username: string }[]; next_cursor: string | null; page?: number; total: number };
    };
    const ids = (answer: Page) => answer.body.users.map((user) => user.user_id);

    async function walk(service: TestService, order: Record<string, unknown>, pageSize: number): Promise<string[][]> {
      const pages: string[][] = [];
      let answer = (await service.callAsAdmin('get_users', { ...order, page_size: pageSize })) as Page;
      for (;;) {
        assert.equal(answer.status, 200, answer.text);
        pages.push(ids(answer));
        if (answer.body.next_cursor === null) return pages;
        assert.ok(pages.length <= 20, 'the cursor never ends');
        answer = await service.callAsAdmin('get_users', { cursor: answer.body.next_cursor, page_size: pageSize });
        assert.equal(answer.body.page, undefined);
      }
    }

    it('goes through every user once, in the order of one big page, for every order', async () => {
      for (const sort_by of ['username', 'created', 'first_name', 'last_name'] as const) {
        for (const sort_direction of ['asc', 'desc'] as const) {
          const order = { sort_by, sort_direction };
          const whole = ids(await directory.callAsAdmin('get_users', { ...order, page_size: 500 }));
          assert.equal(whole.length, 7);
          const pages = await walk(directory, order, 2);
          assert.deepEqual(
            pages.map((page) => page.length),
            [2, 2, 2, 1],
            `${sort_by} ${sort_direction}`,
          );
          assert.deepEqual(pages.flat(), whole, `${sort_by} ${sort_direction}`);
        }
      }
    });

    it('has no next_cursor after a page that ends the listing exactly', async () => {
      const first = (await directory.callAsAdmin('get_users', { page_size: 7 })) as Page;
      assert.equal(first.body.users.length, 7);
      assert.equal(first.body.next_cursor, null);
      const upToLast = (await directory.callAsAdmin('get_users', { page_size: 6 })) as Page;
      const last = (await directory.callAsAdmin('get_users', { cursor: upToLast.body.next_cursor, page_size: 6 })) as Page;
      assert.equal(last.body.users.length, 1);
      assert.equal(last.body.next_cursor, null);
      assert.equal(last.body.total, 7);
    });

    it('neither repeats nor skips a user when users are added and removed before the cursor', async () => {
      const service = await startTestService();
      try {
        for (const username of ['b@x.io', 'd@x.io', 'f@x.io', 'h@x.io']) await service.createUser({ username });
        const first = (await service.callAsAdmin('get_users', { page_size: 2 })) as Page;
        assert.deepEqual(ids(first).length, 2);
        // Before the next page: one user sorts ahead of the cursor, another sorted ahead of it is gone.
        await service.createUser({ username: 'a@x.io' });
        assert.equal((await service.callAsAdmin('delete_user', { target_user: { user_id: ids(first)[0]! } })).status, 200);
        const byCursor = (await service.callAsAdmin('get_users', { cursor: first.body.next_cursor, page_size: 2 })) as Page;
        assert.deepEqual(
          byCursor.body.users.map((user) => user.username),
          ['f@x.io', 'h@x.io'],
        );
      } finally {
        await service.close();
      }
    });

    it('takes sort_by and sort_direction only as the cursor has them, and never with page', async () => {
      const first = (await directory.callAsAdmin('get_users', { sort_by: 'last_name', sort_direction: 'desc', page_size: 2 })) as Page;
      const cursor = first.body.next_cursor;
      const same = await directory.callAsAdmin('get_users', { cursor, sort_by: 'last_name', sort_direction: 'desc', page_size: 2 });
      assert.equal(same.status, 200, same.text);
      for (const [fields, code, path, message] of [
        [{ cursor, page: 2 }, 'invalid_request', '/body', 'must not have page and cursor together'],
        [{ cursor, sort_by: 'username' }, 'invalid_cursor', '/body/sort_by', 'must be last_name, the order of the cursor, or left out'],
        [{ cursor, sort_direction: 'asc' }, 'invalid_cursor', '/body/sort_direction', 'must be desc, the order of the cursor, or left out'],
      ] as const) {
        const answer = await directory.callAsAdmin('get_users', fields);
        assert.equal(answer.status, 400, JSON.stringify(fields));
        assert.equal(answer.body.code, code);
        assert.deepEqual(answer.body.errors, [{ path, message }]);
      }
    });

    it('searches usernames and names in any case, and carries the search in its cursor', async () => {
      type Found = {
        status: number;
        text: string;
        body: { users: { first_name: string; last_name: string }[]; next_cursor: string | null; page?: number; total: number };
      };
      const first = (await directory.callAsAdmin('get_users', { search: 'SMITH', page_size: 2, sort_by: 'first_name' })) as Found;
      assert.equal(first.status, 200, first.text);
      assert.deepEqual([first.body.total, first.body.page, first.body.users.length], [3, 0, 2]);
      const rest = (await directory.callAsAdmin('get_users', { cursor: first.body.next_cursor, page_size: 2 })) as Found;
      assert.equal(rest.status, 200, rest.text);
      assert.equal(rest.body.next_cursor, null);
      assert.deepEqual(
        [...first.body.users, ...rest.body.users].map((user) => `${user.first_name} ${user.last_name}`),
        ['Ann smith', 'Mia smith', 'Zoe smith'],
      );
      const fullName = (await directory.callAsAdmin('get_users', { search: 'ann SMI' })) as Found;
      assert.deepEqual(
        fullName.body.users.map((user) => `${user.first_name} ${user.last_name}`),
        ['Ann smith'],
      );
      assert.equal(((await directory.callAsAdmin('get_users', { search: 'nobody' })) as Found).body.total, 0);
    });

    it("lists a group's members a page at a time, the cursor carrying the group, and with a search among them", async (t) => {
      // A service of its own: the other tests here count the users of theirs.
      const directory = await startTestService();
      t.after(() => directory.close());
      const group = await directory.createGroup();
      const members = [await directory.createUser({ first_name: 'Member' }), await directory.createUser({ first_name: 'Member' })];
      // Another user, in no group but the system's: not listed.
      await directory.createUser({ first_name: 'Member' });
      for (const member of members) {
        await directory.callAsAdmin('add_user_group', {
          target_user: { user_id: member.user_id },
          target_group: { group_id: group.group_id },
        });
      }
      const dashed = group.group_id.replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
      const first = await directory.callAsAdmin('get_users', { group_id: dashed, page_size: 1, sort_by: 'created' });
      assert.equal(first.status, 200, first.text);
      assert.equal(first.body.total, 2);
      const rest = await directory.callAsAdmin('get_users', { cursor: first.body.next_cursor, group_id: group.group_id });
      assert.equal(rest.status, 200, rest.text);
      assert.deepEqual(
        [...first.body.users, ...rest.body.users].map((user: { user_id: string }) => user.user_id),
        members.map((member) => member.user_id),
      );
      const other = await directory.callAsAdmin('get_users', { cursor: first.body.next_cursor, group_id: 'f'.repeat(32) });
      assert.deepEqual([other.status, other.body.errors?.[0]?.path], [400, '/body/group_id']);
      const found = await directory.callAsAdmin('get_users', { group_id: group.group_id, search: members[1]!.username });
      assert.deepEqual(
        found.body.users.map((user: { user_id: string }) => user.user_id),
        [members[1]!.user_id],
      );
      const none = await directory.callAsAdmin('get_users', { group_id: 'e'.repeat(32) });
      assert.deepEqual([none.status, none.body.total], [200, 0], 'no group has the id: no users');
    });

    it('takes a search beside a cursor only as the cursor has it', async () => {
      const searched = (await directory.callAsAdmin('get_users', { search: 'smith', page_size: 1 })) as Page;
      const plain = (await directory.callAsAdmin('get_users', { page_size: 1 })) as Page;
      const same = await directory.callAsAdmin('get_users', { cursor: searched.body.next_cursor, search: 'smith' });
      assert.equal(same.status, 200, same.text);
      for (const [fields, message] of [
        [{ cursor: searched.body.next_cursor, search: 'jones' }, 'must be the search of the cursor, or left out'],
        [{ cursor: plain.body.next_cursor, search: 'smith' }, 'must be left out: the cursor is of a listing without a search'],
      ] as const) {
        const answer = await directory.callAsAdmin('get_users', fields);
        assert.equal(answer.status, 400, JSON.stringify(fields));
        assert.equal(answer.body.code, 'invalid_cursor');
        assert.deepEqual(answer.body.errors, [{ path: '/body/search', message }]);
      }
      const tooLong = await directory.callAsAdmin('get_users', { search: 'x'.repeat(257) });
      assert.equal(tooLong.status, 400);
      assert.equal(tooLong.body.errors[0].path, '/body/search');
    });

    it('refuses a cursor it did not hand out as invalid_cursor, and text no cursor has as invalid_request', async () => {
      const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      for (const cursor of [
        'bm90IGpzb24',
        forged([1, 'password_hash', 'asc', 'x', 'y']),
        forged([2, 'username', 'asc', 'x', 'y']),
        forged([2, 'username', 'asc', 'x', 'y', 7]),
        forged([3, 'username', 'asc', 'x', 'y', 'smith']),
        forged([3, 'username', 'asc', 'x', 'y', { group_id: 7 }]),
        forged([3, 'username', 'asc', 'x', 'y', { group_id: 'g', extra: 1 }]),
        forged({ after: 'x' }),
      ]) {
        const answer = await directory.callAsAdmin('get_users', { cursor });
        assert.equal(answer.status, 400, cursor);
        assert.equal(answer.body.code, 'invalid_cursor');
        assert.equal(answer.body.errors[0].path, '/body/cursor', cursor);
      }
      for (const cursor of ['a+b/c=', '', 'x'.repeat(2049)]) {
        const answer = await directory.callAsAdmin('get_users', { cursor });
        assert.equal(answer.status, 400, cursor);
        assert.equal(answer.body.code, 'invalid_request');
        assert.equal(answer.body.errors[0].path, '/body/cursor', cursor);
      }
    });
  });

  describe('delete_user', () => {
    it('deletes the user and their memberships; a second delete is 404', async () => {
      const user = await service.createUser();
      const first = await service.callAsAdmin('delete_user', { target_user: { user_id: user.user_id } });
      assert.equal(first.status, 200);
      assert.deepEqual(first.body, {});
      assert.equal(await service.store.users.findById(user.user_id), undefined);
      const again = await service.callAsAdmin('delete_user', { target_user: { user_id: user.user_id }, force: true });
      assert.equal(again.status, 404);
      assert.equal(again.body.code, 'user_not_found');
    });
  });
});
