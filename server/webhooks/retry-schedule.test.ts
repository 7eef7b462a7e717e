import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_RETRY_SCHEDULE, nextAttemptAt, parseRetrySchedule, retryAfterMs } from './retry-schedule.js';

describe('the webhook retry schedule', () => {
  it("is Standard Webhooks' by default: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h after each failure", () => {
    const hours = (count: number) => count * 3_600_000;
    assert.deepEqual(parseRetrySchedule(DEFAULT_RETRY_SCHEDULE), [
      5_000,
      300_000,
      1_800_000,
      hours(2),
      hours(5),
      hours(10),
      hours(14),
      hours(20),
      hours(24),
    ]);
    assert.deepEqual(parseRetrySchedule('1s, 2m,3h'), [1_000, 120_000, 10_800_000]);
    assert.throws(() => parseRetrySchedule('5s,soon'), /"soon" is not a duration/);
    assert.throws(() => parseRetrySchedule('5d'), /"5d" is not a duration/);
  });

  it('spreads each wait by ±20 %, honours Retry-After instead, and ends when the schedule does', () => {
    const schedule = [10_000, 60_000];
    assert.equal(
      nextAttemptAt(schedule, 1, 0, () => 0),
      8_000,
    );
    assert.equal(
      nextAttemptAt(schedule, 1, 0, () => 0.999_999),
      12_000,
    );
    assert.equal(
      nextAttemptAt(schedule, 2, 1_000, () => 0.5),
      61_000,
    );
    assert.equal(
      nextAttemptAt(schedule, 2, 1_000, () => 0.5, 30_000),
      31_000,
    );
    assert.equal(
      nextAttemptAt(schedule, 3, 1_000, () => 0.5),
      undefined,
    );
  });

  it('reads Retry-After as seconds or as an HTTP date, capped at a day', () => {
    const now = Date.parse('2026-11-26T10:00:00Z');
    assert.equal(retryAfterMs('120', now), 120_000);
    assert.equal(retryAfterMs('Thu, 26 Nov 2026 10:01:00 GMT', now), 60_000);
    assert.equal(retryAfterMs('999999', now), 86_400_000);
    assert.equal(retryAfterMs('soon', now), undefined);
    assert.equal(retryAfterMs(undefined, now), undefined);
  });
});
