import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { describe, it } from 'node:test';
import { randomKey } from './random-key.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('randomKey', () => {
  it('is a random UUID, made from getRandomValues where randomUUID is withheld (a page over plain HTTP)', () => {
    const withheld = { getRandomValues: webcrypto.getRandomValues.bind(webcrypto) };
    const keys = new Set(Array.from({ length: 100 }, () => randomKey(withheld)));
    assert.equal(keys.size, 100);
    for (const key of keys) assert.match(key, UUID_V4);
    assert.match(randomKey(), UUID_V4, 'randomUUID where it is given');
  });
});
