import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffMs, DEFAULT_RETRY, mayRetry, nextWait, retryAfterMs, retryPolicy } from './retry.js';

const answered = (status: number, serviceError = true) => ({ answered: true as const, status, serviceError });
const dropped = { answered: false as const };

describe('when the SDK retries', () => {
  it('retries an operation that does nothing twice after 429, 502, 503, 504 and no answer, and never after another status', () => {
    for (const operation of ['getUser', 'updateUser', 'deleteUser', 'addUserGroup', 'validateCredentials'] as const) {
      for (const status of [429, 502, 503, 504]) assert.ok(mayRetry(operation, answered(status)), `${operation} ${status}`);
      assert.ok(mayRetry(operation, dropped), `${operation} dropped`);
      for (const status of [200, 400, 401, 403, 404, 409, 413, 500])
        assert.ok(!mayRetry(operation, answered(status)), `${operation} ${status}`);
    }
  });

  it("retries a create sent without a key only when the service itself said it did nothing (its 429 or 503), never after a dropped connection or a proxy's answer", () => {
    for (const operation of ['createUser', 'createGroup', 'createWebhook'] as const) {
      assert.ok(mayRetry(operation, answered(429)));
      assert.ok(mayRetry(operation, answered(503)));
      assert.ok(!mayRetry(operation, dropped), 'the user may have been created');
      assert.ok(!mayRetry(operation, answered(503, false)), "a proxy's 503: not the service's word");
      assert.ok(!mayRetry(operation, answered(502)));
      assert.ok(!mayRetry(operation, answered(504)));
    }
  });

  it('retries any call sent with an Idempotency-Key as it retries a read, and after 409 idempotency_key_in_use', () => {
    for (const operation of ['createUser', 'createGroup', 'createWebhook', 'updateUser'] as const) {
      assert.ok(mayRetry(operation, dropped, { idempotent: true }), `${operation} dropped`);
      for (const status of [429, 502, 503, 504]) assert.ok(mayRetry(operation, answered(status, false), { idempotent: true }));
      assert.ok(mayRetry(operation, { ...answered(409), code: 'idempotency_key_in_use' }, { idempotent: true }));
      assert.ok(!mayRetry(operation, { ...answered(409), code: 'idempotency_key_in_use' }), 'without a key, a 409 is a refusal');
      for (const code of ['username_taken', 'idempotency_answer_not_kept'])
        assert.ok(!mayRetry(operation, { ...answered(409), code }, { idempotent: true }), code);
      for (const status of [400, 422, 500]) assert.ok(!mayRetry(operation, answered(status), { idempotent: true }), `${status}`);
    }
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    assert.equal(retryAfterMs('1', now), 1000);
    assert.equal(retryAfterMs(' 30 ', now), 30_000);
    assert.equal(retryAfterMs('Tue, 24 Nov 2026 10:00:05 GMT', now), 5000);
    assert.equal(retryAfterMs('Tue, 24 Nov 2026 09:00:00 GMT', now), 0, 'a date past is now');
    assert.equal(retryAfterMs('soon', now), undefined);
    assert.equal(retryAfterMs(null, now), undefined);
  });

  it('backs off exponentially with full jitter, up to the cap', () => {
    const policy = retryPolicy({ baseDelayMs: 100, maxDelayMs: 1000 });
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((retry) => backoffMs(retry, policy, () => 0.999)),
      [99, 199, 399, 799, 999],
    );
    assert.equal(
      backoffMs(3, policy, () => 0),
      0,
    );
  });

  it('stops at the last retry, at a Retry-After longer than the cap, and at the deadline', () => {
    const policy = retryPolicy({ retries: 2, baseDelayMs: 100, maxDelayMs: 2000, deadlineMs: 5000 });
    const at = (attempts: number, now = 0) => ({ attempts, startedAt: 0, now });
    const busy = { ...answered(503), retryAfter: '1' };
    assert.equal(nextWait('getUser', busy, at(1), policy), 1000, 'Retry-After is honoured');
    assert.equal(nextWait('getUser', busy, at(3), policy), undefined, 'two retries, then no more');
    assert.equal(nextWait('getUser', { ...answered(503), retryAfter: '3' }, at(1), policy), undefined, 'asked to wait past the cap');
    assert.equal(nextWait('getUser', busy, at(1, 4500), policy), undefined, 'the wait would end past the deadline');
    assert.equal(
      nextWait('getUser', answered(503), at(2), policy, () => 0.5),
      100,
      'no Retry-After: the backoff',
    );
    assert.equal(nextWait('getUser', answered(400), at(1), policy), undefined);
  });

  it('is on by default, and off with retry: false or retries: 0', () => {
    assert.deepEqual(retryPolicy(undefined), DEFAULT_RETRY);
    assert.equal(retryPolicy(false).retries, 0);
    assert.equal(retryPolicy({ retries: undefined }).retries, DEFAULT_RETRY.retries);
    assert.equal(nextWait('getUser', answered(503), { attempts: 1, startedAt: 0, now: 0 }, retryPolicy(false)), undefined);
  });
});
