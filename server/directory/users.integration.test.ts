/**
 * The rules of users, once, on each store: what every door gets from the
 * directory (the doors' tests keep what is their wire's own).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openTestStore, TEST_STORE, type TestStore } from '../store/testing/open-test-store.js';
import { aUser, freshUsername } from '../testing/factories.js';
import { assertRefuses } from '../testing/refusals.js';
import { TEST_SETUP } from '../testing/test-setup.js';
import { verifyPassword } from '../testing/passwords.js';
import { createDirectory, DirectoryError, type Directory } from './index.js';

const dashed = (id: string) => `${id.slice(0, 8)}-${id.slice(8, 12)}-${id.slice(12, 16)}-${id.slice(16, 20)}-${id.slice(20)}`.toUpperCase();

describe(`the directory's users (${TEST_STORE})`, () => {
  let opened: TestStore;
  let directory: Directory;
  before(async () => {
    opened = await openTestStore();
    directory = createDirectory(opened.store);
  });
  after(() => opened.close());

  it('mints a canonical id, fills what was not given, and puts the user in the system group', async () => {
    const user = await aUser(directory, { first_name: 'Ada' });
    assert.match(user.record.user_id, /^[0-9a-f]{32}$/);
    assert.equal(user.record.first_name, 'Ada');
    assert.deepEqual([user.record.last_name, user.record.locked, user.directory.external_id], ['', false, null]);
    assert.deepEqual(
      user.record.groups.map((group) => group.name),
      ['All Users'],
    );
    assert.equal(await opened.inspection.passwordHash(user.record.user_id), null, 'no password given, none set');
  });

  it('finds a user by an id in any accepted form, and by username as the profile prepares it', async () => {
    const user = await aUser(directory, { username: freshUsername('Mixed.Case') });
    assert.equal((await directory.users.find({ userId: dashed(user.record.user_id) })).record.user_id, user.record.user_id);
    assert.equal((await directory.users.find({ username: ` ${user.record.username.toUpperCase()} ` })).record.user_id, user.record.user_id);
    await assertRefuses(directory.users.find({ userId: '0'.repeat(32) }), { kind: 'not_found', entity: 'user' });
  });

  it('lists the users whose username or name contains a text, in any case, its LIKE characters as themselves', async () => {
    const token = `srch${Math.random().toString(36).slice(2, 10)}`;
    const made = {
      byUsername: await aUser(directory, { username: freshUsername(`${token}-one`) }),
      byFirstName: await aUser(directory, { first_name: `${token.toUpperCase()}a`, last_name: 'Two' }),
      byLastName: await aUser(directory, { first_name: 'Three', last_name: `X${token}y` }),
      byFullName: await aUser(directory, { first_name: `Ada${token}`, last_name: 'Lovelace' }),
      withLikeCharacters: await aUser(directory, { first_name: 'Five', last_name: `${token}%_` }),
    };
    await aUser(directory, { first_name: token.slice(0, 6), last_name: 'Unrelated' });
    const search = async (
      matching: string,
      pageSize = 50,
      start: { skip: number } | { after: { value: string; userId: string } } = { skip: 0 },
    ) => directory.users.list({ pageSize, sortBy: 'username', sortDirection: 'asc', start, matching });
    const idsOf = (users: { user_id: string }[]) => users.map((user) => user.user_id).sort();
    const all = Object.values(made)
      .map((user) => user.record.user_id)
      .sort();

    const found = await search(` ${token.toUpperCase()} `);
    assert.deepEqual(idsOf(found.users), all);
    assert.equal(found.total, 5);
    assert.deepEqual(idsOf((await search(`${token} lovelace`)).users), [made.byFullName.record.user_id], '"first last"');
    assert.deepEqual(idsOf((await search(`${token}%_`)).users), [made.withLikeCharacters.record.user_id], '% and _ as themselves');
    assert.deepEqual((await search(`${token}_`)).users, []);
    assert.deepEqual((await search(`${token.slice(0, 4)}%${token.slice(5)}`)).users, []);

    // Paged by position, the pages hold the matches only, each once.
    const firstPage = await search(token, 3);
    assert.ok(firstPage.more);
    const last = firstPage.users.at(-1)!;
    const secondPage = await search(token, 3, { after: { value: last.username, userId: last.user_id } });
    assert.equal(secondPage.more, false);
    assert.deepEqual(idsOf([...firstPage.users, ...secondPage.users]), all);

    const everyone = await directory.users.list({ pageSize: 1, sortBy: 'username', sortDirection: 'asc', start: { skip: 0 } });
    assert.equal((await search('   ', 1)).total, everyone.total, 'nothing to search for: every user');
  });

  it('takes usernames by the username profile, and refuses one it refuses, saying why', async () => {
    await assertRefuses(aUser(directory, { username: 'has\u0000nul' }), { kind: 'invalid_username' });
    const user = await aUser(directory);
    await assertRefuses(directory.users.update(user.record.user_id, { username: 'a\u0007bell' }, TEST_SETUP), { kind: 'invalid_username' });
  });

  it('refuses a taken username, whatever its case, on create and on rename', async () => {
    const [ada, bob] = [await aUser(directory), await aUser(directory)];
    await assertRefuses(aUser(directory, { username: ada.record.username.toUpperCase() }), { kind: 'name_taken', entity: 'user' });
    await assertRefuses(directory.users.update(bob.record.user_id, { username: ada.record.username }, TEST_SETUP), {
      kind: 'name_taken',
      entity: 'user',
    });
  });

  it('screens a password against the common list and the names the user will have after the change', async () => {
    const refusal = async (write: Promise<unknown>) => {
      const error = await write.then(
        () => assert.fail('the password was taken'),
        (failure: unknown) => failure,
      );
      assert.ok(error instanceof DirectoryError && error.refusal.kind === 'weak_password', String(error));
      return error.message;
    };
    assert.match(await refusal(aUser(directory, { password: 'Password1!' })), /commonly used/);
    const user = await aUser(directory, { first_name: 'Ottoline', last_name: 'Wexbury' });
    const id = user.record.user_id;
    assert.match(await refusal(directory.users.update(id, { password: 'Ottoline#1815' }, TEST_SETUP)), /first name/);
    // The names as they will be: a new last name is screened, the old one no longer.
    assert.match(
      await refusal(directory.users.update(id, { last_name: 'Quillfeather', password: 'Quillfeather#1' }, TEST_SETUP)),
      /last name/,
    );
    const renamed = await directory.users.update(id, { last_name: 'Quillfeather', password: 'Wexbury#1815x' }, TEST_SETUP);
    assert.equal(renamed.record.last_name, 'Quillfeather');
  });

  it('refuses one of the user’s latest passwords (PASSWORD_HISTORY), keeping only that many hashes', async () => {
    const [a, b, c] = ['Trqmvz-Alpha-1', 'Trqmvz-Beta-2', 'Trqmvz-Gamma-3'] as const;
    const kept = createDirectory(opened.store, { passwordHistory: 2 });
    const id = (await aUser(kept, { password: a })).record.user_id;
    const change = (password: string) => kept.users.update(id, { password }, TEST_SETUP);
    await assertRefuses(change(a), { kind: 'password_reused' });
    await change(b);
    await assertRefuses(change(a), { kind: 'password_reused' });
    await change(c);
    assert.equal((await opened.store.users.recentPasswordHashes(id, 10)).length, 2, 'only the latest two are kept');
    await change(a); // fallen out of the last two
    await assertRefuses(change(c), { kind: 'password_reused' });

    const forgetting = createDirectory(opened.store, { passwordHistory: 0 });
    await forgetting.users.update(id, { password: a }, TEST_SETUP);
    assert.deepEqual(await opened.store.users.recentPasswordHashes(id, 10), [], '0 keeps none, and forgets those kept');
  });

  it('holds passwords to the policy with the name the user will have, and stores only their hash', async () => {
    await assertRefuses(aUser(directory, { password: 'short' }), { kind: 'weak_password' });
    const username = freshUsername('carefulperson');
    await assertRefuses(aUser(directory, { username, password: `${username}-1` }), { kind: 'weak_password' });
    const user = await aUser(directory, { password: 'Correct-Horse-42' });
    const hash = await opened.inspection.passwordHash(user.record.user_id);
    assert.ok(hash && (await verifyPassword(hash, 'Correct-Horse-42')));
    assert.ok(user.record.password_set_date, 'when it was set is shown');
    await assertRefuses(directory.users.update(user.record.user_id, { password: 'short' }, TEST_SETUP), { kind: 'weak_password' });
    assert.equal(await opened.inspection.passwordHash(user.record.user_id), hash, 'a refused change keeps the password');
  });

  it('writes a change only at an expected version, and says the one the user is at', async () => {
    const user = await aUser(directory);
    const changed = await directory.users.update(user.record.user_id, { first_name: 'One' }, TEST_SETUP, [user.version]);
    assert.equal(changed.version, user.version + 1);
    await assertRefuses(directory.users.update(user.record.user_id, { first_name: 'Two' }, TEST_SETUP, [user.version]), {
      kind: 'stale_version',
      entity: 'user',
      current: changed.version,
    });
    // A password change looks before it hashes: a stale one is refused the same way.
    await assertRefuses(directory.users.update(user.record.user_id, { password: 'Fresh-Password-7' }, TEST_SETUP, [user.version]), {
      kind: 'stale_version',
      current: changed.version,
    });
    await assertRefuses(directory.users.delete(user.record.user_id, TEST_SETUP, [user.version]), { kind: 'stale_version' });
    await directory.users.delete(dashed(user.record.user_id), TEST_SETUP, [changed.version]);
    await assertRefuses(directory.users.delete(user.record.user_id, TEST_SETUP), { kind: 'not_found', entity: 'user' });
  });

  it('rewrites only what differs: a rewrite to the same values writes nothing and keeps the version', async () => {
    const user = await aUser(directory, { first_name: 'Same', emails: [{ value: 'same@example.com', primary: true }] });
    const same = await directory.users.rewrite(
      user.record.user_id,
      (current) => ({ first_name: current.record.first_name, emails: current.directory.emails }),
      TEST_SETUP,
    );
    assert.equal(same.version, user.version);
    assert.deepEqual(same.record.groups, user.record.groups, 'and answers the user with its groups, though a rewrite reads none');
    const renamed = await directory.users.rewrite(user.record.user_id, () => ({ first_name: 'Other', last_name: '' }), TEST_SETUP);
    assert.equal(renamed.version, user.version + 1);
    const { events } = await directory.auditEvents({ pageSize: 10, targetUserId: user.record.user_id });
    assert.deepEqual(events[0]?.changed_fields, ['first_name'], 'only the field that changed is recorded');
  });

  it('logs a user out by moving when their sessions are valid from, only ever forward', async () => {
    const user = await aUser(directory);
    const first = await directory.users.logout(user.record.user_id, TEST_SETUP);
    const second = await directory.users.logout(user.record.user_id, TEST_SETUP);
    assert.ok(first.record.sessions_valid_from && second.record.sessions_valid_from);
    assert.ok(second.record.sessions_valid_from > first.record.sessions_valid_from);
    await assertRefuses(directory.users.logout('f'.repeat(32), TEST_SETUP), { kind: 'not_found' });
  });
});
