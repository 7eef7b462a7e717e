import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validate, version } from 'uuid';
import { EventIds } from './event-ids.js';

describe("the trail's event ids", () => {
  it('are UUIDv7 carrying the millisecond they were made in', () => {
    const id = new EventIds().next(Date.UTC(2026, 10, 27, 3, 0, 0));
    assert.ok(validate(id));
    assert.equal(version(id), 7);
    assert.equal(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16), Date.UTC(2026, 10, 27, 3, 0, 0));
  });

  it('increase within one millisecond and across the draws of random bytes, and never repeat', () => {
    const ids = new EventIds();
    const now = Date.UTC(2026, 10, 27, 3, 0, 0);
    const made = Array.from({ length: 1_000 }, (_, index) => ids.next(now + Math.floor(index / 400)));
    assert.deepEqual([...made].sort(), made, 'in the order made');
    assert.equal(new Set(made).size, made.length);
    // A clock that steps back does not send ids back with it.
    const later = ids.next(now - 5_000);
    assert.ok(later > made.at(-1)!);
  });

  it('draw their randomness afresh: two sources never make the same ids', () => {
    const now = Date.now();
    const first = Array.from({ length: 300 }, () => new EventIds().next(now));
    assert.equal(new Set(first).size, first.length);
  });
});
