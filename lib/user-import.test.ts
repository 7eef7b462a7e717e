import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { importKeyOf } from './user-import.js';

describe("an imported row's Idempotency-Key", () => {
  const row = { username: 'ada@example.com', first_name: 'Ada', locked: true };

  it("is the SHA-256 of the row as asked, password aside, in hex (Node's own digest agrees)", () => {
    const expected = createHash('sha256').update(JSON.stringify(row)).digest('hex');
    assert.equal(importKeyOf(row), `import-${expected}`);
    assert.equal(importKeyOf({ ...row, password: 'Correct-Horse-9' }), `import-${expected}`, 'the password is not in it');
    assert.notEqual(importKeyOf({ ...row, first_name: 'Grace' }), importKeyOf(row));
  });

  it('is made without Web Crypto, which browsers withhold from pages over plain HTTP', (t) => {
    t.mock.method(globalThis.crypto.subtle, 'digest', () => Promise.reject(new Error('not a secure context')));
    assert.match(importKeyOf(row), /^import-[0-9a-f]{64}$/);
  });
});
