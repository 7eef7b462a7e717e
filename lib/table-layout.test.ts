import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fitColumns } from './table-layout.js';

describe('fitColumns', () => {
  it('leaves a table that fits as it is', () => {
    assert.deepEqual(fitColumns([10, 20, 5], [5, 5, 5], 40), [10, 20, 5]);
  });

  it('takes from the widest column first, evening the widest out', () => {
    assert.deepEqual(fitColumns([10, 30, 20], [6, 6, 6], 50), [10, 20, 20]);
    assert.deepEqual(fitColumns([10, 30, 20], [6, 6, 6], 40), [10, 15, 15]);
  });

  it('never takes a column below its least width, and keeps a whole one whole', () => {
    assert.deepEqual(fitColumns([32, 40, 8], [32, 6, 6], 50), [32, 10, 8]);
    assert.deepEqual(fitColumns([32, 40, 8], [32, 6, 6], 10), [32, 6, 6], 'as narrow as it can be');
  });
});
