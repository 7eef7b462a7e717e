/**
 * The SDK against the Prism mock of the contract, as a frontend team would use
 * it before any server exists: every operation answers with the contract's
 * example, and a request that breaks the contract gets the contract's 400.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createWorkspaceClient, type WorkspaceClient } from 'workspace-user-api/client';
import { freePort } from '../lib/testing/ports.js';
import { type RunningMock, startPrism } from '../lib/prism.js';

describe('the SDK against the Prism mock', { timeout: 120_000 }, () => {
  let mock: RunningMock;
  let sdk: WorkspaceClient;
  const user_id = '4b2d9a1e0c8f4e6a9d3b7c5e1f0a2b3c';
  const target_group = { group_id: '9f1c2e3d4b5a69788796a5b4c3d2e1f0' };

  before(async () => {
    mock = await startPrism('workspace', await freePort());
    // The mock checks the shape of the credentials, not their truth.
    sdk = createWorkspaceClient({ baseUrl: mock.url, api_key: 'Qm3kV9xZ2pLr7tYw', api_key_secret: 'mock-secret' });
  });
  after(() => mock?.stop());

  it("answers every operation with the contract's example", async () => {
    assert.equal((await sdk.validateCredentials()).data?.name, 'provisioning');
    assert.equal((await sdk.getUsers()).data?.users[0]?.username, 'alice@example.com');
    assert.equal((await sdk.getUser({ target_user: { user_id } })).data?.user.user_id, user_id);
    assert.equal((await sdk.createUser({ target_user: { username: 'alice@example.com' } })).data?.user.username, 'alice@example.com');
    assert.equal((await sdk.updateUser({ target_user: { user_id, first_name: 'Alice' } })).data?.user.first_name, 'Alice');
    assert.deepEqual((await sdk.deleteUser({ target_user: { user_id } })).data, {});
    assert.deepEqual(
      (await sdk.getGroups()).data?.groups.map((group) => group.name),
      ['All Users', 'Engineering'],
    );
    assert.deepEqual((await sdk.addUserGroup({ target_user: { user_id }, target_group })).data, {});
    assert.deepEqual((await sdk.removeUserGroup({ target_user: { user_id }, target_group })).data, {});
  });

  it("refuses a weak password with the contract's 400 weak_password", async () => {
    const result = await sdk.updateUser({ target_user: { user_id, password: 'weak' } });
    assert.equal(result.response?.status, 400);
    assert.equal(result.error?.code, 'weak_password');
    assert.equal(
      result.error?.error_message,
      'Password must contain at least one uppercase letter and at least one special character (such as ! @ # $)',
      "by default, the policy's answer to the README's password1",
    );
  });

  it("answers each rule of the password policy in the policy's words, chosen with Prefer: example=", async () => {
    for (const [example, password, message] of [
      ['weak_password_too_short', 'Short1!', 'Password must be at least 8 characters long'],
      ['weak_password_no_digit', 'Password!!', 'Password must contain at least one digit'],
      ['weak_password_no_special', 'Password12', 'Password must contain at least one special character (such as ! @ # $)'],
    ]) {
      const answer = await fetch(`${mock.url}/api/public/update_user`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Prefer: `code=400, example=${example}` },
        body: JSON.stringify({ api_key: 'Qm3kV9xZ2pLr7tYw', api_key_secret: 'mock-secret', target_user: { user_id, password } }),
      });
      assert.equal(answer.status, 400, example);
      assert.equal(((await answer.json()) as { error_message: string }).error_message, message, example);
    }
  });
});

describe('the SCIM contract under the Prism mock', { timeout: 120_000 }, () => {
  let mock: RunningMock;
  before(async () => {
    mock = await startPrism('scim', await freePort());
  });
  after(() => mock?.stop());

  const scim = (path: string, init: RequestInit = {}) =>
    fetch(`${mock.url}${path}`, { ...init, headers: { Authorization: 'Bearer Qm3kV9xZ2pLr7tYw.mock-secret', ...init.headers } });

  it("answers a lookup with the contract's example, in SCIM's media type", async () => {
    const answer = await scim(`/Users?filter=${encodeURIComponent('userName eq "ada@example.com"')}`);
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('Content-Type') ?? '', /^application\/scim\+json/);
    const body = (await answer.json()) as { totalResults: number; Resources: { userName: string }[] };
    assert.equal(body.Resources[0]?.userName, 'ada@example.com');
  });

  it("refuses a user without userName with SCIM's 400", async () => {
    const answer = await scim('/Users', { method: 'POST', headers: { 'Content-Type': 'application/scim+json' }, body: '{"name": {}}' });
    assert.equal(answer.status, 400);
    const body = (await answer.json()) as { schemas: string[]; scimType: string };
    assert.deepEqual(body.schemas, ['urn:ietf:params:scim:api:messages:2.0:Error']);
    assert.equal(typeof body.scimType, 'string');
  });
});
