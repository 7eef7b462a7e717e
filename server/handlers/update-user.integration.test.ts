import { kasmMembers } from '../testing/error-bodies.js';
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyPassword } from '../testing/passwords.js';
import { type Fields, startTestService, type TestService } from '../testing/service.js';

describe('update_user', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  const update = (target_user: Fields<'update_user'>['target_user']) => service.callAsAdmin('update_user', { target_user });
  /** For shapes the contract refuses or tolerates. */
  const send = (target_user: Record<string, unknown>) => service.sendAsAdmin('update_user', { target_user });

  describe('docs/spec §4.1', () => {
    it('rule 1: valid credentials, an existing user and a good password give 200 and the updated user', async () => {
      const user = await service.createUser({ first_name: 'Alice' });
      const answer = await update({ user_id: user.user_id, first_name: 'Ada', password: 'Correct-Horse-42' });
      assert.equal(answer.status, 200);
      assert.equal(answer.body.user.user_id, user.user_id);
      assert.equal(answer.body.user.first_name, 'Ada');
      assert.notEqual(answer.body.user.password_set_date, null);
    });

    it('rule 2: an unknown user_id fails with 404 user_not_found', async () => {
      const answer = await update({ user_id: 'f'.repeat(32), first_name: 'Ada' });
      assert.equal(answer.status, 404);
      assert.deepEqual(kasmMembers(answer.body), { error_message: 'User not found', code: 'user_not_found' });
    });

    it('rule 2: an unknown user_id with a new password also fails with 404', async () => {
      const answer = await update({ user_id: 'f'.repeat(32), password: 'Correct-Horse-42' });
      assert.equal(answer.status, 404);
      assert.equal(answer.body.code, 'user_not_found');
    });

    it('rule 3: a wrong api_key or api_key_secret fails with 401, and nothing changes', async () => {
      const user = await service.createUser({ first_name: 'Alice' });
      const wrongSecret = await service.call('update_user', {
        api_key: service.admin.api_key,
        api_key_secret: 'not-the-secret',
        target_user: { user_id: user.user_id, first_name: 'Mallory' },
      });
      const wrongKey = await service.call('update_user', {
        api_key: 'no-such-key',
        api_key_secret: service.admin.api_key_secret,
        target_user: { user_id: user.user_id, first_name: 'Mallory' },
      });
      for (const answer of [wrongSecret, wrongKey]) {
        assert.equal(answer.status, 401);
        assert.deepEqual(kasmMembers(answer.body), { error_message: 'Invalid API key or secret', code: 'invalid_credentials' });
      }
      assert.equal((await service.store.users.findById(user.user_id))?.record.first_name, 'Alice');
    });

    it('rule 4: a password that breaks the policy fails with 400 weak_password naming every broken rule, and nothing changes', async () => {
      const user = await service.createUser({ first_name: 'Alice', password: 'Correct-Horse-42' });
      const hashBefore = await service.inspection.passwordHash(user.user_id);
      const answer = await update({ user_id: user.user_id, first_name: 'Ada', password: 'trqmvzxw' });
      assert.equal(answer.status, 400);
      assert.equal(answer.body.code, 'weak_password');
      assert.equal(
        answer.body.error_message,
        'Password must contain at least one uppercase letter, at least one digit and at least one special character (such as ! @ # $)',
      );
      assert.deepEqual(answer.body.errors, [
        { path: '/body/target_user/password', message: answer.body.error_message.replace(/^Password /, '') },
      ]);
      const stored = (await service.store.users.findById(user.user_id))?.record;
      assert.equal(stored?.first_name, 'Alice');
      assert.equal(await service.inspection.passwordHash(user.user_id), hashBefore);
    });
  });

  describe('the password policy through the API', () => {
    const cases: [string, string, RegExp][] = [
      ['too short', 'Ab1!xyz', /^Password must be at least 8 characters long$/],
      ['no uppercase', 'trqmvz1!', /^Password must contain at least one uppercase letter$/],
      ['no lowercase', 'TRQMVZ1!', /^Password must contain at least one lowercase letter$/],
      ['no digit', 'Trqmvzx!', /^Password must contain at least one digit$/],
      ['no special character', 'Trqmvzx1', /^Password must contain at least one special character/],
      ['a commonly used password beneath', 'P@ssw0rd123', /^Password must not be a commonly used password$/],
      ['too long', `Ab1!${'x'.repeat(125)}`, /^Password must be at most 128 characters long$/],
    ];
    for (const [rule, password, message] of cases) {
      it(`refuses a password with ${rule}`, async () => {
        const user = await service.createUser();
        const answer = await update({ user_id: user.user_id, password });
        assert.equal(answer.status, 400);
        assert.equal(answer.body.code, 'weak_password');
        assert.match(answer.body.error_message, message);
      });
    }

    for (const length of [8, 64, 128]) {
      it(`accepts a ${length}-character password`, async () => {
        const user = await service.createUser();
        const password = `Ab1!${'x'.repeat(length - 4)}`;
        const answer = await update({ user_id: user.user_id, password });
        assert.equal(answer.status, 200, answer.text);
        assert.ok(await verifyPassword((await service.inspection.passwordHash(user.user_id))!, password));
      });
    }

    it('reports a weak password together with other problems as invalid_request listing all of them', async () => {
      const user = await service.createUser();
      const answer = await send({ user_id: user.user_id, password: 'short', locked: 'yes' });
      assert.equal(answer.status, 400);
      assert.equal(answer.body.code, 'invalid_request');
      const paths = answer.body.errors.map((error: { path: string }) => error.path).sort();
      assert.deepEqual(paths, ['/body/target_user/locked', '/body/target_user/password']);
      assert.match(answer.body.error_message, /at least 8 characters/);
    });
  });

  it('refuses a password the user had lately with 400 password_reused, naming how many are kept', async () => {
    const user = await service.createUser({ password: 'Trqmvz-Alpha-1' });
    const again = await update({ user_id: user.user_id, password: 'Trqmvz-Alpha-1' });
    assert.equal(again.status, 400, again.text);
    assert.equal(again.body.code, 'password_reused');
    assert.deepEqual(again.body.errors, [
      { path: '/body/target_user/password', message: "must not be one of the user's last 5 passwords: choose one not used before" },
    ]);
    assert.equal((await update({ user_id: user.user_id, password: 'Trqmvz-Beta-2' })).status, 200);
  });

  it('stores the new password as an argon2id hash that verifies, and the old one no longer does', async () => {
    const user = await service.createUser({ password: 'Old-Password-1' });
    assert.equal((await update({ user_id: user.user_id, password: 'New-Password-2' })).status, 200);
    const hash = await service.inspection.passwordHash(user.user_id);
    assert.match(hash ?? '', /^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    assert.equal(await verifyPassword(hash!, 'New-Password-2'), true);
    assert.equal(await verifyPassword(hash!, 'Old-Password-1'), false);
  });

  it('changes only the fields present; omitted ones keep their values', async () => {
    const user = await service.createUser({
      first_name: 'Alice',
      last_name: 'Liddell',
      phone: '555-0100',
      organization: 'Wonderland',
      locked: true,
      password: 'Correct-Horse-42',
    });
    const hashBefore = await service.inspection.passwordHash(user.user_id);
    const answer = await update({ user_id: user.user_id, last_name: 'Hargreaves', disabled: true });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body.user, { ...user, last_name: 'Hargreaves', disabled: true });
    assert.equal(await service.inspection.passwordHash(user.user_id), hashBefore);
  });

  it('with only user_id, changes nothing and returns the user', async () => {
    const user = await service.createUser({ first_name: 'Alice' });
    const answer = await update({ user_id: user.user_id });
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body.user, user);
  });

  it('sets locked and disabled both ways', async () => {
    const user = await service.createUser();
    assert.equal((await update({ user_id: user.user_id, locked: true, disabled: true })).body.user.locked, true);
    const answer = await update({ user_id: user.user_id, locked: false, disabled: false });
    assert.equal(answer.body.user.locked, false);
    assert.equal(answer.body.user.disabled, false);
  });

  it('trims and lower-cases a new username, and refuses one that another user has with 409', async () => {
    const taken = await service.createUser({ username: 'taken@example.com' });
    const user = await service.createUser();
    const renamed = await update({ user_id: user.user_id, username: '  New.Name@Example.COM ' });
    assert.equal(renamed.status, 200);
    assert.equal(renamed.body.user.username, 'new.name@example.com');

    const clash = await update({ user_id: user.user_id, username: ' TAKEN@example.com', first_name: 'Changed' });
    assert.equal(clash.status, 409);
    assert.deepEqual(kasmMembers(clash.body), { error_message: 'Username is already taken', code: 'username_taken' });
    const stored = (await service.store.users.findById(user.user_id))?.record;
    assert.equal(stored?.username, 'new.name@example.com');
    assert.equal(stored?.first_name, '', 'a refused update changes no field');
    assert.equal((await service.store.users.findById(taken.user_id))?.record.username, 'taken@example.com');
  });

  describe('refuses mass assignment, leaving the row unchanged', () => {
    const attempts: [string, Record<string, unknown>][] = [
      ['realm', { realm: 'ldap' }],
      ['groups', { groups: [{ group_id: 'a'.repeat(32), name: 'Admins' }] }],
      ['password_hash', { password_hash: '$argon2id$v=19$m=19456,t=2,p=1$forged' }],
      ['created', { created: '2000-01-01T00:00:00Z' }],
    ];
    for (const [what, fields] of attempts) {
      it(`refuses ${what}`, async () => {
        const user = await service.createUser({ first_name: 'Alice' });
        const answer = await update({ user_id: user.user_id, first_name: 'Changed', ...fields });
        assert.equal(answer.status, 400);
        assert.equal(answer.body.code, 'invalid_request');
        assert.equal(answer.body.errors[0].message, 'must not be sent: the service sets it');
        assert.deepEqual((await service.store.users.findById(user.user_id))?.record, user);
      });
    }

    it('ignores keys it does not know, as Kasm does: a second user_id beside target_user changes no one else', async () => {
      const user = await service.createUser({ first_name: 'Alice' });
      const other = await service.createUser({ first_name: 'Bob' });
      const answer = await service.sendAsAdmin('update_user', {
        target_user: { user_id: user.user_id, first_name: 'Changed', is_admin: true, authorized_images: ['x'] },
        user_id: other.user_id,
        group_id: 'a'.repeat(32),
      });
      assert.equal(answer.status, 200);
      assert.equal(answer.body.user.first_name, 'Changed');
      assert.equal('is_admin' in answer.body.user, false, 'an unknown key is never echoed');
      assert.deepEqual((await service.store.users.findById(other.user_id))?.record, other);
    });

    it('refuses a malformed user_id with 400, not 404', async () => {
      const answer = await update({ user_id: 'ABC-not-hex', first_name: 'x' });
      assert.equal(answer.status, 400);
      assert.equal(answer.body.errors[0].path, '/body/target_user/user_id');
    });
  });

  it('applies 20 concurrent updates of different fields of one user, losing none', async () => {
    const user = await service.createUser();
    const fields = ['first_name', 'last_name', 'phone', 'organization'] as const;
    const updates = Array.from({ length: 20 }, (_, i) => ({ field: fields[i % fields.length]!, value: `value-${i}` }));
    const answers = await Promise.all(updates.map(({ field, value }) => update({ user_id: user.user_id, [field]: value })));
    assert.deepEqual(
      answers.map((answer) => answer.status),
      updates.map(() => 200),
    );
    // An update that rewrote the whole row would put back another field's old (empty) value.
    // Every field must instead hold a value one of its own updates wrote.
    const stored = (await service.store.users.findById(user.user_id))!.record;
    for (const field of fields) {
      const written = updates.filter((u) => u.field === field).map((u) => u.value);
      assert.ok(written.includes(stored[field]), `${field} is "${stored[field]}"`);
    }
  });

  it('never returns a password or a hash, and never logs one', async () => {
    const password = 'Very-Secret-Pass-9';
    const user = await service.createUser({ password: 'Earlier-Secret-Pass-8' });
    const answers = [
      await update({ user_id: user.user_id, password }),
      await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } }),
      await service.callAsAdmin('get_users', {}),
    ];
    const hash = (await service.inspection.passwordHash(user.user_id))!;
    for (const answer of answers) {
      assert.equal(answer.status, 200);
      assert.ok(!answer.text.includes(password), 'the password is in a response');
      assert.ok(!answer.text.includes(hash.slice(-20)), 'the hash is in a response');
      assert.ok(!/password_hash|argon2/.test(answer.text));
    }
    const logs = service.logs();
    assert.ok(logs.length > 0, 'requests are logged');
    for (const secret of [password, hash.slice(-20), service.admin.api_key_secret]) {
      assert.ok(!logs.includes(secret), 'a secret is in the log');
    }
  });
});
