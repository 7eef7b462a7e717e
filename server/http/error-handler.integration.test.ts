import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BODY_LIMIT_BYTES } from '../../lib/contract/operations.js';
import type { Store } from '../store/repositories.js';
import { type Answer, startTestService, type TestService } from '../testing/service.js';
import { StoreUnavailableError } from '../store/faults.js';
import { withOverrides } from '../testing/store-overrides.js';

const ERROR_MEMBERS = ['type', 'title', 'status', 'detail', 'instance', 'error_message', 'code', 'errors', 'request_id'];

/** Every error answer is the contract's JSON error shape, RFC 9457's members and Kasm's, and nothing else. */
function assertErrorShape(answer: Answer, status: number, code: string): void {
  assert.equal(answer.status, status, answer.text);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(typeof answer.body, 'object', `not JSON: ${answer.text}`);
  assert.equal(answer.body.code, code);
  assert.equal(typeof answer.body.error_message, 'string');
  assert.deepEqual(
    Object.keys(answer.body).filter((key) => !ERROR_MEMBERS.includes(key)),
    [],
  );
  assert.equal(answer.body.status, status, 'the problem details name the status');
  assert.equal(answer.body.detail, answer.body.error_message);
  assert.match(answer.body.type, new RegExp(`/docs/errors#${code}$`));
  assert.ok(!/at .+\.(ts|js):\d+/.test(answer.text), 'a stack trace in the answer');
}

const json = (body: string, contentType = 'application/json'): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': contentType },
  body,
});

describe('problem details (RFC 9457) by negotiation', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('answers application/problem+json to a client that asks for it, and the same body as JSON to the rest', async () => {
    const body = JSON.stringify({ ...service.admin, target_user: { username: 'nobody@example.com' } });
    const ask = (accept?: string) =>
      service.request('/api/public/get_user', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', ...(accept ? { Accept: accept } : {}) },
        body,
      });
    const problem = await ask('application/problem+json');
    assert.equal(problem.status, 404);
    assert.match(problem.headers.get('content-type') ?? '', /^application\/problem\+json/);
    const requestId = problem.headers.get('x-request-id');
    assert.deepEqual(problem.body, {
      type: `${service.baseUrl}/docs/errors#user_not_found`,
      title: 'User not found',
      status: 404,
      detail: 'User not found',
      instance: `urn:uuid:${requestId}`,
      error_message: 'User not found',
      code: 'user_not_found',
      request_id: requestId,
    });
    for (const accept of [undefined, 'application/json', '*/*', 'application/json, application/problem+json;q=0.5']) {
      const plain = await ask(accept);
      assert.match(plain.headers.get('content-type') ?? '', /^application\/json/, String(accept));
      assert.equal(plain.body.type, problem.body.type);
    }
  });

  it("serves the error reference that every type names, each code's section at its anchor, under a policy that runs nothing", async () => {
    const page = await service.request('/docs/errors');
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.doesNotMatch(page.headers.get('content-security-policy') ?? '', /script-src/);
  });
});

describe('the error table (docs/architecture.md, Errors)', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('400 invalid_request for malformed JSON', async () => {
    const answer = await service.request('/api/public/update_user', json('{"api_key": "x", '));
    assertErrorShape(answer, 400, 'invalid_request');
    assert.equal(answer.body.error_message, 'Invalid request: the body is not valid JSON');
  });

  it('400 invalid_request for a JSON body that is not an object; 401 for an empty one, which holds no credentials', async () => {
    assertErrorShape(await service.request('/api/public/get_groups', json('[]')), 400, 'invalid_request');
    assertErrorShape(await service.request('/api/public/get_groups', json('"text"')), 400, 'invalid_request');
    assertErrorShape(await service.request('/api/public/get_groups', json('')), 401, 'invalid_credentials');
  });

  it('400 invalid_request naming the field for a wrong type or a missing field', async () => {
    const wrongType = await service.sendAsAdmin('update_user', { target_user: { user_id: 'a'.repeat(32), locked: 'yes' } });
    assertErrorShape(wrongType, 400, 'invalid_request');
    assert.deepEqual(wrongType.body.errors, [{ path: '/body/target_user/locked', message: 'must be boolean or null' }]);
    const missing = await service.call('update_user', { api_key: 'k', target_user: { user_id: 'a'.repeat(32) } });
    assertErrorShape(missing, 400, 'invalid_request');
    assert.match(missing.body.error_message, /api_key_secret/);
  });

  it('400 invalid_request for text no store can hold (NUL) and a malformed key id, never a 500 (found by the contract fuzz on PostgreSQL)', async () => {
    const user = await service.createUser();
    const nul = '\u0000';
    for (const [operation, fields] of [
      ['create_user', { target_user: { username: 'nul@example.com', first_name: `A${nul}` } }],
      ['create_user', { target_user: { username: `nul${nul}@example.com` } }],
      ['update_user', { target_user: { user_id: user.user_id, organization: nul } }],
      ['update_user', { target_user: { user_id: user.user_id, phone: `555${nul}` } }],
      ['get_user', { target_user: { username: `x${nul}` } }],
      ['get_users', { search: `ada${nul}` }],
    ] as const) {
      assertErrorShape(await service.sendAsAdmin(operation, fields), 400, 'invalid_request');
    }
    assertErrorShape(await service.call('validate_credentials', { api_key: `key${nul}`, api_key_secret: 'x' }), 400, 'invalid_request');
    assertErrorShape(await service.call('validate_credentials', { api_key: 'no such key', api_key_secret: 'x' }), 400, 'invalid_request');
    assert.equal(
      (await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } })).body.user.organization,
      '',
      'nothing written',
    );
  });

  it('400 invalid_request for an unknown query parameter', async () => {
    assertErrorShape(await service.request('/healthz?verbose=1'), 400, 'invalid_request');
  });

  it('400 invalid_request for query parameters the query parser drops (found by the contract fuzz)', async () => {
    for (const query of ['?[=1', '?%26%5B=x', '?&']) {
      assertErrorShape(await service.request(`/healthz${query}`), 400, 'invalid_request');
      assertErrorShape(
        await service.request(`/api/public/get_groups${query}`, json(JSON.stringify(service.admin))),
        400,
        'invalid_request',
      );
    }
    assert.equal((await service.request('/healthz?')).status, 200);
  });

  it('404 not_found in JSON for an unknown path, even to a browser asking for HTML', async () => {
    const answer = await service.request('/admin/login', { headers: { Accept: 'text/html' } });
    assertErrorShape(answer, 404, 'not_found');
    assert.equal(answer.body.error_message, 'Not found: GET /admin/login');
    assertErrorShape(await service.request('/api/public/no_such_operation', json('{}')), 404, 'not_found');
  });

  it('405 method_not_allowed with Allow for another method on a known path', async () => {
    const answer = await service.request('/api/public/update_user');
    assertErrorShape(answer, 405, 'method_not_allowed');
    assert.equal(answer.headers.get('allow'), 'POST');
  });

  it('413 payload_too_large for a body over the limit', async () => {
    const body = JSON.stringify({ ...service.admin, padding: 'x'.repeat(BODY_LIMIT_BYTES) });
    assertErrorShape(await service.request('/api/public/get_groups', json(body)), 413, 'payload_too_large');
  });

  it('415 unsupported_media_type for a body that is not JSON, is not UTF-8, or has no type', async () => {
    assertErrorShape(
      await service.request('/api/public/get_groups', json('api_key=x', 'application/x-www-form-urlencoded')),
      415,
      'unsupported_media_type',
    );
    assertErrorShape(await service.request('/api/public/get_groups', json('{}', 'text/plain')), 415, 'unsupported_media_type');
    assertErrorShape(await service.request('/api/public/get_groups', { method: 'POST' }), 415, 'unsupported_media_type');
    assertErrorShape(
      await service.request('/api/public/get_groups', json('{}', 'application/json; charset=latin1')),
      415,
      'unsupported_media_type',
    );
  });

  it('gives every answer a request id, keeping a well-formed incoming one', async () => {
    const generated = await service.request('/healthz');
    assert.match(generated.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    const kept = await service.request('/healthz', { headers: { 'X-Request-Id': 'lb-1234.abc' } });
    assert.equal(kept.headers.get('x-request-id'), 'lb-1234.abc');
    const replaced = await service.request('/healthz', { headers: { 'X-Request-Id': 'bad id with spaces' } });
    assert.notEqual(replaced.headers.get('x-request-id'), 'bad id with spaces');
  });

  it('200 from /healthz when the database answers', async () => {
    const answer = await service.request('/healthz');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { status: 'ok' });
  });

  it('200 from /readyz when the service takes traffic', async () => {
    const answer = await service.request('/readyz');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, { status: 'ready' });
  });
});

describe('failures inside the service', () => {
  let service: TestService;
  let leakedHash: string;
  before(async () => {
    leakedHash = '$argon2id$v=19$m=19456,t=2,p=1$c2VjcmV0c2FsdA$leakedleakedleaked';
    service = await startTestService({
      wrapStore: (store: Store) =>
        withOverrides(store, {
          groups: {
            list: async () => {
              throw new Error('disk I/O error at /var/lib/secret-path');
            },
          },
          // A database that never answers: liveness must not wait for it.
          unreadyBecause: () => new Promise(() => {}),
          audit: {
            list: async () => {
              throw new StoreUnavailableError('busy', { cause: new Error('SQLITE_BUSY: database is locked') });
            },
          },
          users: {
            // A store bug that would leak a hash: response validation must stop it.
            findById: async (userId: string) => {
              const found = await store.users.findById(userId);
              return found && { ...found, record: { ...found.record, password_hash: leakedHash } };
            },
          },
        }),
    });
  });

  after(() => service.close());

  it('500 internal_error with nothing of the cause, which is logged under the request id', async () => {
    const answer = await service.callAsAdmin('get_groups');
    assertErrorShape(answer, 500, 'internal_error');
    const requestId = answer.headers.get('x-request-id')!;
    assert.deepEqual(answer.body, {
      type: `${service.baseUrl}/docs/errors#internal_error`,
      title: 'Internal error',
      status: 500,
      detail: 'Internal server error',
      instance: `urn:uuid:${requestId}`,
      request_id: requestId,
      error_message: 'Internal server error',
      code: 'internal_error',
    });
    const logged = service
      .logs()
      .split('\n')
      .filter((line) => line.includes(requestId));
    assert.ok(
      logged.some((line) => line.includes('disk I/O error')),
      'the cause is logged with the request id',
    );
  });

  it('200 from /healthz when the database does not answer, to HEAD as well: liveness never waits on it', async () => {
    assert.equal((await service.request('/healthz', { signal: AbortSignal.timeout(1_000) })).status, 200);
    const head = await service.request('/healthz', { method: 'HEAD', signal: AbortSignal.timeout(1_000) });
    assert.deepEqual([head.status, head.text], [200, '']);
  });

  it('503 database_busy with Retry-After from an operation whose database is locked, the cause in the log and not the answer', async () => {
    const answer = await service.callAsAdmin('get_audit_events');
    assertErrorShape(answer, 503, 'database_busy');
    assert.equal(answer.headers.get('retry-after'), '1');
    assert.doesNotMatch(answer.text, /SQLITE/);
    const requestId = answer.headers.get('x-request-id')!;
    const line = service
      .logs()
      .split('\n')
      .find((entry) => entry.includes(requestId) && entry.includes('database unavailable'));
    assert.match(line ?? '', /SQLITE_BUSY: database is locked/);
    assert.doesNotMatch(line ?? '', /"stack"/);
  });

  it('refuses to send a response that breaks the contract, so a hash can never leak', async () => {
    const user = await service.createUser();
    const answer = await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } });
    assertErrorShape(answer, 500, 'internal_error');
    assert.ok(!answer.text.includes('leaked'));
  });
});
