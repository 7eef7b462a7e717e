/**
 * The SDK's retries against a fake server that answers as a busy or broken
 * service would: each test scripts the answers, one per request, and counts
 * what arrived.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createWorkspaceClient, type RetryOptions } from './index.js';

type Reply = (req: IncomingMessage, res: ServerResponse) => void;

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}): Reply =>
  (_req, res) => {
    res
      .writeHead(status, { 'Content-Type': 'application/json', 'X-Request-Id': `request-${status}`, ...headers })
      .end(JSON.stringify(body));
  };
const busy = (retryAfter: string) =>
  json(503, { error_message: 'Database unavailable', code: 'unavailable' }, { 'Retry-After': retryAfter });
const drop: Reply = (req) => req.socket.destroy();
const user = { user_id: 'a'.repeat(32), username: 'ada@example.com' };

describe('SDK retries, against a fake server', () => {
  let server: Server;
  let baseUrl: string;
  let script: Reply[] = [];
  let arrived: number[] = [];
  /** The Idempotency-Key each request came with. */
  let keys: (string | undefined)[] = [];
  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        arrived.push(Date.now());
        keys.push(req.headers['idempotency-key'] as string | undefined);
        (script.shift() ?? json(500, { error_message: 'the test scripted no answer', code: 'internal_error' }))(req, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise((resolve) => server.close(resolve)));
  const answering = (...replies: Reply[]) => {
    script = replies;
    arrived = [];
    keys = [];
  };
  const sdk = (retry?: RetryOptions | false) =>
    createWorkspaceClient({ baseUrl, api_key: 'key', api_key_secret: 'secret', ...(retry === undefined ? {} : { retry }) });

  it('waits what Retry-After asks after a 503, then succeeds on the second attempt, saying so', async () => {
    answering(busy('1'), json(200, { user }));
    const started = Date.now();
    const result = await sdk().getUser({ target_user: { user_id: user.user_id } });
    assert.equal(result.data?.user.username, 'ada@example.com');
    assert.equal(result.attempts, 2);
    assert.equal(result.requestId, 'request-200');
    assert.equal(arrived.length, 2);
    assert.ok(arrived[1]! - arrived[0]! >= 1000, `retried after ${arrived[1]! - arrived[0]!} ms`);
    assert.ok(Date.now() - started >= 1000);
  });

  it('never retries a 400', async () => {
    answering(json(400, { error_message: 'Invalid request', code: 'invalid_request' }), json(200, { user }));
    const result = await sdk().updateUser({ target_user: { user_id: user.user_id, first_name: 'Ada' } });
    assert.equal(result.error?.code, 'invalid_request');
    assert.equal(result.attempts, 1);
    assert.equal(result.requestId, 'request-400');
    assert.equal(arrived.length, 1);
  });

  it('retries create_user after a dropped connection with the same Idempotency-Key, so the service makes one user', async () => {
    // The service as it behaves: the first attempt makes the user, and its answer is lost on the way;
    // the retry, under the same key, gets the first answer again.
    const made = new Set<string>();
    const service: Reply = (req, res) => {
      const key = req.headers['idempotency-key'] as string;
      const replayed = made.has(key);
      made.add(key);
      if (!replayed) return void req.socket.destroy();
      json(200, { user }, { 'Idempotent-Replayed': 'true' })(req, res);
    };
    answering(service, service);
    const result = await sdk({ baseDelayMs: 10 }).createUser({ target_user: { username: 'ada@example.com' } });
    assert.equal(result.data?.user.user_id, user.user_id);
    assert.equal(result.attempts, 2);
    assert.equal(made.size, 1, 'one key for both attempts: one user');
    assert.match(keys[0] ?? '', /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(result.response?.headers.get('idempotent-replayed'), 'true');
  });

  it('gives each create call a key of its own, sends the key it is given, and none to a read', async () => {
    answering(json(200, { user }), json(200, { user }), json(200, { user }), json(200, { user }));
    const client = sdk();
    await client.createUser({ target_user: { username: 'ada@example.com' } });
    await client.createUser({ target_user: { username: 'ada@example.com' } });
    await client.updateUser({ target_user: { user_id: user.user_id, first_name: 'Ada' } }, { idempotencyKey: 'job-42-update' });
    await client.getUser({ target_user: { user_id: user.user_id } });
    assert.notEqual(keys[0], keys[1], 'two calls, two changes');
    assert.deepEqual(keys.slice(2), ['job-42-update', undefined]);
  });

  it('retries a call whose first attempt is still running (409 idempotency_key_in_use), under the same key', async () => {
    answering(json(409, { error_message: 'still running', code: 'idempotency_key_in_use' }), json(200, { user }));
    const result = await sdk({ baseDelayMs: 10 }).createUser({ target_user: { username: 'ada@example.com' } });
    assert.equal(result.attempts, 2);
    assert.equal(keys[0], keys[1]);
    assert.equal(result.data?.user.user_id, user.user_id);
  });

  it('gives a create whose idempotencyKey is undefined a key of its own, and never retries a refusal', async () => {
    answering(drop, json(200, { user }));
    const result = await sdk().createGroup({ target_group: { name: 'Staff' } }, { idempotencyKey: undefined });
    assert.equal(result.attempts, 2, 'undefined means the default: a key of its own');
    answering(json(409, { error_message: 'taken', code: 'username_taken' }), json(200, { user }));
    const taken = await sdk().createUser({ target_user: { username: 'ada@example.com' } });
    assert.equal(taken.attempts, 1, 'a refusal is not retried');
  });

  it("retries create_user after the service's own 503, which stored nothing", async () => {
    answering(busy('0'), json(200, { user }));
    const result = await sdk().createUser({ target_user: { username: 'ada@example.com' } });
    assert.equal(result.data?.user.user_id, user.user_id);
    assert.equal(result.attempts, 2);
  });

  it('retries a read after a dropped connection', async () => {
    answering(drop, json(200, { user }));
    const result = await sdk({ baseDelayMs: 10 }).getUser({ target_user: { user_id: user.user_id } });
    assert.equal(result.attempts, 2);
    assert.equal(result.data?.user.user_id, user.user_id);
  });

  it('stops at the deadline, across attempts', async () => {
    answering(busy('1'), busy('1'), busy('1'), busy('1'));
    const started = Date.now();
    const result = await sdk({ retries: 10, deadlineMs: 1500 }).getUser({ target_user: { user_id: user.user_id } });
    assert.equal(result.error?.code, 'unavailable');
    assert.equal(result.attempts, 2, 'a second wait of 1 s would end past the deadline');
    assert.ok(Date.now() - started < 1500);
  });

  it('can be turned off', async () => {
    answering(busy('0'), json(200, { user }));
    const result = await sdk(false).getUser({ target_user: { user_id: user.user_id } });
    assert.equal(result.error?.code, 'unavailable');
    assert.equal(result.attempts, 1);
  });
});
