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
  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        arrived.push(Date.now());
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

  it('does not retry create_user after a dropped connection, which may have created the user', async () => {
    answering(drop, json(200, { user }));
    const result = await sdk().createUser({ target_user: { username: 'ada@example.com' } });
    assert.equal(result.error?.code, 'network_error');
    assert.equal(result.attempts, 1);
    assert.equal(result.requestId, undefined);
    assert.equal(arrived.length, 1);
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
