import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fingerprintOf } from './idempotency.js';

const request = (body: unknown, originalUrl = '/api/public/create_user', method = 'POST') => ({ method, originalUrl, body });

describe("an idempotent request's fingerprint", () => {
  const base = { api_key: 'k', api_key_secret: 's', target_user: { username: 'ada@example.com', first_name: 'Ada', password: 'P-1' } };

  it('is the same for the same request, whatever the order of its members, its credentials or its query', () => {
    const reordered = {
      target_user: { password: 'P-1', first_name: 'Ada', username: 'ada@example.com' },
      api_key_secret: 's2',
      api_key: 'k',
    };
    assert.equal(fingerprintOf(request(base)), fingerprintOf(request(reordered)));
    assert.equal(fingerprintOf(request(base)), fingerprintOf(request(base, '/api/public/create_user?x=1')));
  });

  it('leaves passwords out, at any depth and in any case: it is kept, and a digest must not reveal one', () => {
    assert.equal(
      fingerprintOf(request(base)),
      fingerprintOf(request({ ...base, target_user: { ...base.target_user, password: 'another' } })),
    );
    const scim = { schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'ada', password: 'one' };
    assert.equal(fingerprintOf(request(scim, '/scim/v2/Users')), fingerprintOf(request({ ...scim, password: 'two' }, '/scim/v2/Users')));
  });

  it('differs with any other member, the path or the method', () => {
    const fingerprint = fingerprintOf(request(base));
    assert.notEqual(fingerprint, fingerprintOf(request({ ...base, target_user: { ...base.target_user, first_name: 'Eve' } })));
    assert.notEqual(fingerprint, fingerprintOf(request(base, '/api/public/update_user')));
    assert.notEqual(
      fingerprintOf(request(undefined, '/scim/v2/Users/1', 'DELETE')),
      fingerprintOf(request(undefined, '/scim/v2/Users/2', 'DELETE')),
    );
    assert.notEqual(fingerprintOf(request({}, '/scim/v2/Users/1', 'PUT')), fingerprintOf(request({}, '/scim/v2/Users/1', 'PATCH')));
  });
});
