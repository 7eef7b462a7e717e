/**
 * The documented connection limits, held within a second of their values:
 * 10 s for a request's headers, 30 s for the whole request. Node checks them
 * only every 30 s unless told otherwise, which let slow clients hold a
 * connection for up to twice as long.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { rawRequest } from '../../lib/testing/raw-http.js';
import { startTestService, type TestService } from '../testing/service.js';
import { SERVER_TIMEOUTS } from './lifecycle.js';

describe('connection limits', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('cuts a client that sends its headers or its body a byte a second at 10 s and 30 s, with a JSON 408', async () => {
    assert.deepEqual([SERVER_TIMEOUTS.headersMs, SERVER_TIMEOUTS.requestMs], [10_000, 30_000], 'the limits the README documents');
    const body = JSON.stringify(service.admin);
    const drip = (text: string) => [...text];
    // Both at once: the test takes the longer of the two, not their sum.
    const [slowHeaders, slowBody] = await Promise.all([
      rawRequest(service.baseUrl, 'POST /api/public/get_groups HTTP/1.1\r\n', {
        waitMs: 20_000,
        trickle: {
          parts: drip('Host: x\r\nContent-Type: application/json\r\nX-Padding: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n'),
          intervalMs: 1_000,
        },
      }),
      rawRequest(
        service.baseUrl,
        `POST /api/public/get_groups HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
        {
          waitMs: 40_000,
          trickle: { parts: drip(body), intervalMs: 1_000 },
        },
      ),
    ]);
    for (const [answer, limit] of [
      [slowHeaders, SERVER_TIMEOUTS.headersMs],
      [slowBody, SERVER_TIMEOUTS.requestMs],
    ] as const) {
      assert.ok(answer.closed, 'the server closed the connection');
      assert.ok(
        answer.elapsedMs >= limit - 100 && answer.elapsedMs <= limit + 1_500,
        `closed after ${answer.elapsedMs} ms, limit ${limit} ms`,
      );
      assert.equal(answer.status, 408);
      assert.equal(JSON.parse(answer.body).code, 'request_timeout');
    }
  });
});
