import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { projectFile } from '../lib/project-root.js';
import { referencePageContract, SERVED_ADDRESS_PLACEHOLDER } from './reference-page.js';

type Contract = Parameters<typeof referencePageContract>[0];
const contract = JSON.parse(readFileSync(projectFile('generated', 'workspace', 'openapi.json'), 'utf8')) as Contract;
const securityOf = (document: Contract, path: string, method: string) => document.paths[path]![method]!.security;

describe('the contract as the API reference page shows it', () => {
  const page = referencePageContract(contract);

  it('names every way to send credentials for people, the body first, and leaves no "None"', () => {
    assert.deepEqual(securityOf(contract, '/api/public/update_user', 'post')?.[0], {}, 'the contract lists the body as {}');
    assert.deepEqual(securityOf(page, '/api/public/update_user', 'post'), [
      { 'API key in the body': [] },
      { 'HTTP Basic': [] },
      { 'api-key header': [], 'api-key-secret header': [] },
      { 'Console session': [] },
    ]);
    for (const item of Object.values(page.paths)) {
      for (const operation of Object.values(item)) {
        for (const requirement of operation.security ?? []) assert.notDeepEqual(requirement, {});
      }
    }
    const schemes = page.components.securitySchemes ?? {};
    assert.deepEqual(Object.keys(schemes), [
      'API key in the body',
      'HTTP Basic',
      'api-key header',
      'api-key-secret header',
      'Console session',
    ]);
    assert.match(schemes['API key in the body']?.description ?? '', /`api_key` and `api_key_secret` in the JSON request body/);
  });

  it('names its server as the address it is read at, in plain words, and carries its own logo inline', () => {
    assert.deepEqual(page.servers, [{ url: SERVED_ADDRESS_PLACEHOLDER, description: 'This service, at the address this page is read at' }]);
    const logo = (page.info['x-logo'] as { url: string; altText: string } | undefined)!;
    assert.match(logo.url, /^data:image\/svg\+xml;base64,/, 'nothing loaded from elsewhere');
    assert.match(Buffer.from(logo.url.split(',')[1]!, 'base64').toString('utf8'), /^<svg [^>]*>[\s\S]*<\/svg>$/);
    assert.equal(logo.altText, 'Workspace User API');
  });

  it('changes nothing but security, the server and the logo: operations without credentials keep none', () => {
    assert.deepEqual(securityOf(page, '/healthz', 'get'), securityOf(contract, '/healthz', 'get'));
    assert.deepEqual(
      { ...page.paths['/api/public/update_user']!.post, security: undefined },
      { ...contract.paths['/api/public/update_user']!.post, security: undefined },
    );
  });
});
