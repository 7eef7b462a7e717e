import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validate, version } from 'uuid';
import { EventIds, idsFrom } from './event-ids.js';

describe("the trail's event ids", () => {
  it('are UUIDv7 carrying the millisecond they were made in', () => {
    const { id, time } = new EventIds().next(Date.UTC(2026, 10, 27, 3, 0, 0));
    assert.ok(validate(id));
    assert.equal(version(id), 7);
    assert.equal(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16), Date.UTC(2026, 10, 27, 3, 0, 0));
    assert.equal(time, '2026-11-27T03:00:00.000Z');
  });

  it('carry their time, later than the clock where it stepped back, and in text order with their times', () => {
    const ids = new EventIds();
    const now = Date.UTC(2026, 10, 27, 3, 0, 0);
    const first = ids.next(now);
    const stepped = ids.next(now - 5_000);
    assert.equal(stepped.time, first.time, 'the time of the id, not of the clock that went back');
    assert.ok(stepped.id > first.id);
    // The ids of a millisecond and later sort at or after idsFrom, those before it before.
    assert.ok(first.id >= idsFrom(now) && first.id < idsFrom(now + 1));
    assert.ok(ids.next(now + 1).id >= idsFrom(now + 1));
    assert.ok(first.id > idsFrom(now - 1) && new EventIds().next(now - 1).id < idsFrom(now));
  });

  it('increase within one millisecond and across the draws of random bytes, and never repeat', () => {
    const ids = new EventIds();
    const now = Date.UTC(2026, 10, 27, 3, 0, 0);
    const made = Array.from({ length: 1_000 }, (_, index) => ids.next(now + Math.floor(index / 400)).id);
    assert.deepEqual([...made].sort(), made, 'in the order made');
    assert.equal(new Set(made).size, made.length);
    // A clock that steps back does not send ids back with it.
    const later = ids.next(now - 5_000).id;
    assert.ok(later > made.at(-1)!);
  });

  it('draw their randomness afresh: two sources never make the same ids', () => {
    const now = Date.now();
    const first = Array.from({ length: 300 }, () => new EventIds().next(now).id);
    assert.equal(new Set(first).size, first.length);
  });
});
