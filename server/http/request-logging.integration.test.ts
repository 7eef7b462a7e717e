import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../testing/service.js';

/** The JSON log lines whose message is `message`. */
function linesSaying(service: TestService, message: string): Record<string, any>[] {
  return service
    .logs()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, any>)
    .filter((line) => line.msg === message);
}

describe('request logging', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('writes one line per request: its id, method, path, status, time and key, and nothing of the body', async () => {
    const answer = await service.callAsAdmin('get_groups');
    const id = answer.headers.get('x-request-id');
    const lines = linesSaying(service, 'request completed').filter((line) => line.req?.id === id);
    assert.equal(lines.length, 1, service.logs());
    const [line] = lines;
    assert.equal(line!.level, 30);
    assert.deepEqual(
      { method: line!.req.method, url: line!.req.url, status: line!.res.statusCode, key: line!.api_key },
      { method: 'POST', url: '/api/public/get_groups', status: 200, key: service.admin.api_key },
    );
    assert.equal(typeof line!.req.remoteAddress, 'string');
    assert.ok(Number.isInteger(line!.responseTime) && line!.responseTime >= 0);
    assert.ok(!JSON.stringify(line).includes(service.admin.api_key_secret));
  });

  it('logs a failed credential check at info with no key named', async () => {
    const answer = await service.call('get_groups', { api_key: 'unknown', api_key_secret: 'guess' });
    const [line] = linesSaying(service, 'request completed').filter((entry) => entry.req?.id === answer.headers.get('x-request-id'));
    assert.equal(line?.res.statusCode, 401);
    assert.equal(line?.api_key, undefined);
  });

  it('logs a request the client gave up on as aborted, at warn', async () => {
    const { port } = new URL(service.baseUrl);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    // Headers and half a body, then the client goes away.
    socket.write(
      'POST /api/public/get_groups HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Request-Id: gave-up-1\r\nContent-Length: 100\r\n\r\n{"api_key":',
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.destroy();
    for (let waited = 0; waited < 2_000 && linesSaying(service, 'request aborted').length === 0; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const [line] = linesSaying(service, 'request aborted').filter((entry) => entry.req?.id === 'gave-up-1');
    assert.equal(line?.level, 40, service.logs());
  });
});
