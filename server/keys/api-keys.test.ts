import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { digestSecret, isValidKey, issueApiKey } from './api-keys.js';

describe('issued API keys', () => {
  it('have 16-character base64url ids that never start with "-", so they can be typed after a command', () => {
    // One id in 64 would start with "-" by chance: 2000 draws meet about 31 of them.
    for (let i = 0; i < 2000; i++) {
      const { api_key } = issueApiKey('k', [], null).record;
      assert.match(api_key, /^[A-Za-z0-9_][A-Za-z0-9_-]{15}$/);
    }
  });

  it("store the secret's SHA-256 in hex, the digest every earlier version stored, and take only that secret", () => {
    // FIPS 180-2's first example, and a secret of the shape issued: keys stored before must keep working.
    assert.equal(digestSecret('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const { secret, record } = issueApiKey('k', ['users_view'], null);
    assert.equal(record.secret_digest, digestSecret(secret));
    assert.equal(isValidKey(record, secret), true);
    assert.equal(isValidKey(record, `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`), false);
    assert.equal(isValidKey(undefined, secret), false);
  });
});
