import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { issueApiKey } from './api-keys.js';

describe('issued API keys', () => {
  it('have 16-character base64url ids that never start with "-", so they can be typed after a command', () => {
    // One id in 64 would start with "-" by chance: 2000 draws meet about 31 of them.
    for (let i = 0; i < 2000; i++) {
      const { api_key } = issueApiKey('k', [], null).record;
      assert.match(api_key, /^[A-Za-z0-9_][A-Za-z0-9_-]{15}$/);
    }
  });
});
