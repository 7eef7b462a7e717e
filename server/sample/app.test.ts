import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSampleServer, type TestSampleServer } from '../testing/sample-server.js';
import { buildRecords } from './records.js';

describe('the sample data server', () => {
  let sample: TestSampleServer;
  let baseUrl: string;
  before(async () => {
    sample = await startSampleServer();
    baseUrl = sample.baseUrl;
  });
  after(() => sample.close());

  it('serves a small HTML5 home page with a title and an h2 greeting (spec 4.2)', async () => {
    const response = await fetch(`${baseUrl}/`);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html; charset=utf-8/);
    const html = await response.text();
    assert.match(html, /^<!doctype html>\n<html lang="en">/);
    assert.match(html, /<meta charset="utf-8">/);
    assert.match(html, /<title>Sample Data Server<\/title>/);
    assert.match(html, /<h2>Hello from the sample data server!<\/h2>/);
    assert.match(html, /<\/html>\n$/);
  });

  it('serves the information records as JSON (spec 2.3, 4.3)', async () => {
    const response = await fetch(`${baseUrl}/api/data`, { headers: { 'Content-Type': 'application/json' } });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
    const records = (await response.json()) as Record<string, unknown>[];
    assert.deepEqual(records, buildRecords());
    assert.ok(records.length >= 3);
    for (const record of records) {
      assert.deepEqual(Object.keys(record).sort(), ['DOB', 'Email', 'FirstName', 'LastName', 'Owns_Cars', 'Residence']);
      assert.match(record.DOB, /^(January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}$/);
      assert.match(record.Email, /^[^@\s]+@[^@\s]+\.[a-z]+$/);
      for (const car of record.Owns_Cars) assert.match(car, /^\d{4}-\S/);
    }
  });

  it('builds the records anew on each request', () => {
    const first = buildRecords();
    first[0]!.Owns_Cars.push('1999-Changed');
    assert.notDeepEqual(buildRecords(), first);
  });

  it('lets an arbitrary origin read the data with credentials: origin echoed, credentials allowed, Vary: Origin', async () => {
    for (const origin of ['http://example.test', 'https://app.customer.example:8443']) {
      const response = await fetch(`${baseUrl}/api/data`, { headers: { Origin: origin } });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('access-control-allow-origin'), origin);
      assert.equal(response.headers.get('access-control-allow-credentials'), 'true');
      assert.match(response.headers.get('vary') ?? '', /Origin/);
    }
  });

  it("echoes no origin that is not a web page's: not null (sandboxed frames, file: pages), not a path or a scheme of its own", async () => {
    for (const origin of ['null', 'file://', 'http://example.test/path', 'chrome-extension://abc']) {
      const response = await fetch(`${baseUrl}/api/data`, { headers: { Origin: origin } });
      assert.equal(response.status, 200, 'the data is still public; only the credentialed grant is withheld');
      assert.equal(response.headers.get('access-control-allow-origin'), null, origin);
      await response.arrayBuffer();
    }
  });

  it('allows a fixed list of request headers in a preflight, not whatever is asked for', async () => {
    const response = await fetch(`${baseUrl}/api/data`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'http://example.test',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'authorization, cookie',
      },
    });
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    assert.doesNotMatch(allowed, /authorization|cookie/);
    assert.match(allowed, /content-type/);
  });

  it('answers OPTIONS on a path it does not have with 404, and sends nosniff and frame protection', async () => {
    const unknown = await fetch(`${baseUrl}/api/nothing`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://example.test', 'Access-Control-Request-Method': 'GET' },
    });
    assert.equal(unknown.status, 404);
    assert.equal(unknown.headers.get('access-control-allow-origin'), null);
    await unknown.arrayBuffer();
    const page = await fetch(`${baseUrl}/`);
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(page.headers.get('x-frame-options'), 'DENY');
    assert.match(page.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    await page.text();
  });

  it('answers a preflight for a GET with Content-Type: application/json', async () => {
    const response = await fetch(`${baseUrl}/api/data`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://example.test', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'content-type' },
    });
    assert.equal(response.status, 204);
    assert.equal(response.headers.get('access-control-allow-origin'), 'http://example.test');
    assert.equal(response.headers.get('access-control-allow-credentials'), 'true');
    assert.match(response.headers.get('access-control-allow-methods') ?? '', /GET/);
    assert.match(response.headers.get('access-control-allow-headers') ?? '', /content-type/i);
    assert.match(response.headers.get('vary') ?? '', /Origin/);
  });

  it('never answers a credentialed request with a wildcard origin', async () => {
    const response = await fetch(`${baseUrl}/api/data`, { headers: { Origin: 'http://example.test', Cookie: 'session=1' } });
    assert.notEqual(response.headers.get('access-control-allow-origin'), '*');
  });

  it('answers an unknown path with a 404 in the JSON error shape (spec 4.4)', async () => {
    const response = await fetch(`${baseUrl}/api/nothing`, { headers: { Accept: 'text/html' } });
    assert.equal(response.status, 404);
    const { instance: _instance, request_id: requestId, ...body } = (await response.json()) as Record<string, unknown>;
    assert.equal(requestId, response.headers.get('x-request-id'));
    // RFC 9457's about:blank: the sample server serves no error reference for a type to name.
    assert.deepEqual(body, {
      type: 'about:blank',
      title: 'Not Found',
      status: 404,
      detail: 'Not found: GET /api/nothing',
      error_message: 'Not found: GET /api/nothing',
      code: 'not_found',
    });
  });

  it('answers another method with 405 and an unknown query parameter with 400, in the error shape', async () => {
    const post = await fetch(`${baseUrl}/api/data`, { method: 'POST' });
    assert.equal(post.status, 405);
    assert.equal(((await post.json()) as { code: string }).code, 'method_not_allowed');
    const query = await fetch(`${baseUrl}/api/data?limit=1`);
    assert.equal(query.status, 400);
    assert.equal(((await query.json()) as { code: string }).code, 'invalid_request');
  });

  it('answers HEAD wherever it answers GET: the same status and headers, CORS included, and no body', async () => {
    for (const path of ['/', '/api/data', '/api/data?limit=1', '/api/nothing']) {
      const headers = { Origin: 'http://example.test' };
      const [got, head] = [await fetch(`${baseUrl}${path}`, { headers }), await fetch(`${baseUrl}${path}`, { method: 'HEAD', headers })];
      assert.equal(head.status, got.status, path);
      // The 404's message names the method, so only its length differs there.
      for (const name of [
        'content-type',
        'content-length',
        'access-control-allow-origin',
        'access-control-allow-credentials',
        'vary',
      ].filter((name) => !path.endsWith('nothing') || name !== 'content-length')) {
        assert.equal(head.headers.get(name), got.headers.get(name), `${path}: ${name}`);
      }
      assert.equal(await head.text(), '', `${path}: no body`);
      await got.arrayBuffer();
    }
  });

  it('routes one spelling of each path: no other case, no trailing slash', async () => {
    for (const path of ['/API/DATA', '/api/Data', '/api/data/', '//api/data']) {
      const response = await fetch(`${baseUrl}${path}`);
      assert.equal(response.status, 404, path);
      assert.equal(((await response.json()) as { code: string }).code, 'not_found');
    }
  });
});
