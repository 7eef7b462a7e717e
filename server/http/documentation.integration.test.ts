import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { OPERATIONS } from '../../lib/contract/operations.js';
import { projectFile } from '../../lib/project-root.js';
import { startTestService, type TestService } from '../testing/service.js';
import { API_REFERENCE_PAGE, NARROW_SCREEN_STYLE } from './documentation.js';
import { SERVED_ADDRESS_PLACEHOLDER } from '../reference-page.js';

describe('the API reference and the contract, served', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('serves /docs as the page the build rendered, the contract inside it, running only its own scripts', async () => {
    const built = readFileSync(API_REFERENCE_PAGE, 'utf8'); // run-tests.ts builds before this tier
    const answer = await service.request('/docs');
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(
      answer.text,
      built.replaceAll(SERVED_ADDRESS_PLACEHOLDER, service.baseUrl).replace('</head>', `${NARROW_SCREEN_STYLE}</head>`),
      'the page as built, its server the address it was read at, with its style for narrow screens',
    );
    assert.match(answer.text, /<title>Workspace User API reference<\/title>/);
    assert.match(answer.text, /Update a user/, 'the operations are rendered into the page, readable without JavaScript');
    assert.doesNotMatch(answer.text, /<script[^>]+src=|<link[^>]+href="https?:/, 'the page loads no script or stylesheet');
    const scripts = answer.headers.get('content-security-policy')?.match(/script-src ([^;]*)/)?.[1] ?? '';
    // The page's own inline scripts, each allowed by its digest, and nothing else (the browser test runs them).
    assert.match(scripts, /^'sha256-[A-Za-z0-9+/]+={0,2}'( 'sha256-[A-Za-z0-9+/]+={0,2}')*$/);
  });

  it('serves the bundled contract as JSON at /openapi.json', async () => {
    const answer = await service.request('/openapi.json');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, parse(readFileSync(projectFile('generated', 'workspace', 'openapi.yaml'), 'utf8')));
  });
});

describe('HEAD on the workspace service', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('answers GET / with where to go next, each link a page the service serves', async () => {
    const index = await service.request('/');
    assert.equal(index.status, 200);
    assert.equal(index.body.name, 'Workspace User API');
    assert.match(index.body.version, /^\d+\.\d+\.\d+$/);
    assert.deepEqual(index.body.links, {
      api_reference: '/docs',
      openapi: '/openapi.json',
      health: '/healthz',
      readiness: '/readyz',
      scim: '/scim/v2',
    });
    for (const link of ['api_reference', 'openapi', 'health', 'readiness']) {
      assert.equal((await service.request(index.body.links[link])).status, 200, link);
    }
    const scim = await service.request(`${index.body.links.scim}/ServiceProviderConfig`, {
      headers: { Authorization: `Bearer ${service.admin.api_key}.${service.admin.api_key_secret}` },
    });
    assert.equal(scim.status, 200, 'scim');
  });

  it("answers HEAD on every GET route with the GET's status and headers and no body", async () => {
    const gets = OPERATIONS.filter((operation) => operation.method === 'get');
    assert.deepEqual(
      gets.map((operation) => operation.path).sort(),
      OPERATIONS.filter((operation) => operation.method === 'head')
        .map((operation) => operation.path)
        .sort(),
      'the contract declares a HEAD for every GET',
    );
    for (const path of [...gets.map((operation) => operation.path), '/healthz?verbose=1', '/nowhere']) {
      // The same representation asked for both: a HEAD is never compressed, so it names the plain length.
      const identity = { 'Accept-Encoding': 'identity' };
      const [got, head] = [
        await service.request(path, { headers: identity }),
        await service.request(path, { method: 'HEAD', headers: identity }),
      ];
      assert.equal(head.status, got.status, path);
      // The 404's message names the method, so only its length differs there.
      for (const name of ['content-type', 'content-length', 'cache-control', 'content-security-policy', 'etag'].filter(
        (name) => path !== '/nowhere' || name !== 'content-length',
      )) {
        assert.equal(head.headers.get(name), got.headers.get(name), `${path}: ${name}`);
      }
      assert.equal(head.text, '', `${path}: no body`);
    }
    const post = await service.request('/api/public/get_groups', { method: 'HEAD' });
    assert.equal(post.status, 405);
    assert.equal(post.headers.get('allow'), 'POST');
  });
});

describe('the workspace service refuses cross-origin reads', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('answers no preflight, so browsers never send the credentials-bearing POST', async () => {
    const answer = await service.request('/api/public/get_users', {
      method: 'OPTIONS',
      headers: { Origin: 'http://example.test', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type' },
    });
    assert.notEqual(answer.status, 204);
    assert.equal(answer.headers.get('access-control-allow-origin'), null);
    assert.equal(answer.headers.get('access-control-allow-credentials'), null);
  });

  it('grants no origin on an ordinary request either', async () => {
    const answer = await service.request('/api/public/get_groups', {
      method: 'POST',
      headers: { Origin: 'http://example.test', 'Content-Type': 'application/json' },
      body: JSON.stringify(service.admin),
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('access-control-allow-origin'), null);
  });
});
