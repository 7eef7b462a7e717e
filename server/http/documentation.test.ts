import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { projectFile } from '../project-files.js';
import { startTestService, type TestService } from '../testing/service.js';

describe('the API reference and the contract, served', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('serves /docs as a page that renders /openapi.json with a script of its own, no CDN', async () => {
    const answer = await service.request('/docs');
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(answer.text, /<title>Workspace User API reference<\/title>/);
    assert.match(answer.text, /<redoc spec-url="\/openapi.json"/);
    assert.match(answer.text, /<script src="\/docs\/redoc.standalone.js"><\/script>/);
    assert.doesNotMatch(answer.text, /https?:\/\//, 'the page loads nothing from elsewhere');
  });

  it('serves the renderer, cacheable', async () => {
    const answer = await service.request('/docs/redoc.standalone.js');
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.match(answer.headers.get('cache-control') ?? '', /max-age=\d+/);
    assert.ok(answer.text.length > 100_000);
  });

  it('serves the bundled contract as JSON at /openapi.json', async () => {
    const answer = await service.request('/openapi.json');
    assert.equal(answer.status, 200);
    assert.deepEqual(answer.body, parse(readFileSync(projectFile('generated', 'workspace', 'openapi.yaml'), 'utf8')));
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
