/**
 * CORS on the workspace service (http/cors.ts): off by default; with
 * CORS_ORIGINS, preflights from exactly those origins answered with what the
 * contract uses, and the response headers a page needs exposed. The browser's
 * side of it is in server/browser.system.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestService, type TestService } from '../testing/service.js';

const ALLOWED = 'https://app.example.com';

function preflight(service: TestService, origin: string, path = '/api/public/update_user') {
  return fetch(`${service.baseUrl}${path}`, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization,content-type,if-match,idempotency-key',
    },
  });
}

describe('CORS on the workspace service', () => {
  let open: TestService;
  let closed: TestService;
  before(async () => {
    [open, closed] = await Promise.all([startTestService({ corsOrigins: [ALLOWED, 'http://127.0.0.1:5173'] }), startTestService()]);
  });
  after(() => Promise.all([open.close(), closed.close()]));

  it("answers an allowed origin's preflight with the contract's methods and headers, credentials, and a Max-Age", async () => {
    const answer = await preflight(open, ALLOWED);
    assert.equal(answer.status, 204);
    assert.equal(answer.headers.get('access-control-allow-origin'), ALLOWED, 'the origin itself, never *');
    assert.equal(answer.headers.get('access-control-allow-credentials'), 'true');
    assert.match(answer.headers.get('vary') ?? '', /Origin/);
    assert.equal(answer.headers.get('access-control-max-age'), '7200');
    const methods = (answer.headers.get('access-control-allow-methods') ?? '').split(',');
    assert.deepEqual(methods.sort(), ['GET', 'HEAD', 'POST']);
    const headers = (answer.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(',');
    for (const header of ['content-type', 'authorization', 'api-key', 'api-key-secret', 'if-match', 'idempotency-key']) {
      assert.ok(headers.includes(header), `${header} may be sent`);
    }
  });

  it('exposes ETag, X-Request-Id and Retry-After on the answers an allowed origin reads', async () => {
    const answer = await fetch(`${open.baseUrl}/api/public/validate_credentials`, {
      method: 'POST',
      headers: { Origin: ALLOWED, 'Content-Type': 'application/json' },
      body: JSON.stringify(open.admin),
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('access-control-allow-origin'), ALLOWED);
    const exposed = (answer.headers.get('access-control-expose-headers') ?? '').split(',');
    for (const header of ['ETag', 'Retry-After', 'X-Request-Id', 'Idempotent-Replayed']) assert.ok(exposed.includes(header), header);
  });

  it('gives any other origin, null included, no access header, and gives none at all when CORS_ORIGINS is unset', async () => {
    for (const origin of ['https://evil.example', 'null', 'https://app.example.com.evil.example', 'http://app.example.com']) {
      const answer = await preflight(open, origin);
      assert.equal(answer.headers.get('access-control-allow-origin'), null, origin);
    }
    const unset = await preflight(closed, ALLOWED);
    assert.equal(unset.status, 405, 'off by default: OPTIONS is a method the contract does not have');
    assert.equal(unset.headers.get('access-control-allow-origin'), null);
  });

  it("answers a preflight only on the contract's paths", async () => {
    const answer = await preflight(open, ALLOWED, '/api/public/no_such_operation');
    assert.equal(answer.headers.get('access-control-allow-origin'), null);
    assert.equal(answer.status, 404);
  });
});
