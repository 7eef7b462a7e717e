import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '../service-errors.js';
import { clientKey as throttleKey } from '../http/client-key.js';
import { AuthThrottle } from './throttle.js';

const invalid = new ServiceError(401, 'invalid_credentials', 'Invalid API key or secret');
/** One more failure from this client with this key id: whether it is answered 429. */
const blocked = (throttle: AuthThrottle, address: string, apiKey = 'key') => throttle.fail(address, apiKey, invalid).answer.status === 429;
/** `n` failures, each answered 401. */
const failTimes = (throttle: AuthThrottle, address: string, n: number, apiKey = 'key') => {
  for (let i = 0; i < n; i++) assert.equal(throttle.fail(address, apiKey, invalid).answer.status, 401, `failure ${i + 1}`);
};

describe('the failed-credential throttle', () => {
  it('counts an IPv6 client by its /64, and an IPv4-mapped address as the IPv4 address', () => {
    assert.equal(throttleKey('2001:db8:1:2:aaaa::1'), throttleKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    assert.notEqual(throttleKey('2001:db8:1:2::1'), throttleKey('2001:db8:1:3::1'));
    assert.equal(throttleKey('::ffff:192.0.2.7'), '192.0.2.7');
    assert.notEqual(throttleKey('192.0.2.7'), throttleKey('192.0.2.8'));

    const throttle = new AuthThrottle({ maxFailures: 3, windowSeconds: 60 });
    // A host rotating through the addresses of its /64 is still one client.
    for (const address of ['2001:db8:0:7::1', '2001:db8:0:7::2', '2001:db8:0:7:abcd:1234:5678:9abc']) failTimes(throttle, address, 1);
    assert.ok(blocked(throttle, '2001:db8:0:7:ffff::42'));
    assert.ok(!blocked(throttle, '2001:db8:0:8::1'), 'the next /64 is another client');
  });

  it('counts per client and key id: failures with one key id leave every other key id of that client at 401', () => {
    const throttle = new AuthThrottle({ maxFailures: 2, windowSeconds: 60 });
    failTimes(throttle, '192.0.2.1', 2, 'misconfigured');
    const third = throttle.fail('192.0.2.1', 'misconfigured', invalid);
    assert.deepEqual([third.answer.status, third.throttledNow], [429, true], 'past the limit: 429, and the one warning');
    assert.deepEqual(
      [blocked(throttle, '192.0.2.1', 'misconfigured'), throttle.fail('192.0.2.1', 'misconfigured', invalid).throttledNow],
      [true, false],
    );
    assert.ok(!blocked(throttle, '192.0.2.1', 'another-key'));
    assert.ok(!blocked(throttle, '192.0.2.2', 'misconfigured'));
  });

  it('keeps at most its capacity of clients, however many addresses fail', () => {
    const throttle = new AuthThrottle({ maxFailures: 10, windowSeconds: 300, capacity: 1_000 });
    for (let i = 0; i < 60_000; i++) throttle.fail(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, 'key', invalid);
    assert.equal(throttle.size, 1_000);
    for (let i = 0; i < 60_000; i++) throttle.fail(`2001:db8:${(i >> 8).toString(16)}:${(i & 255).toString(16)}::1`, 'key', invalid);
    assert.equal(throttle.size, 1_000);
  });

  it('when full, forgets the client whose last failure is oldest, and keeps the others counting', () => {
    const throttle = new AuthThrottle({ maxFailures: 2, windowSeconds: 300, capacity: 100 });
    failTimes(throttle, '192.0.2.1', 1);
    failTimes(throttle, '192.0.2.2', 2);
    failTimes(throttle, '192.0.2.1', 1); // 192.0.2.1 failed last: .2 is now the oldest
    for (let i = 0; i < 99; i++) failTimes(throttle, `198.51.100.${i}`, 1);
    // Each check is a failure too, and adds a client: the still-counted one is asked first.
    assert.ok(blocked(throttle, '192.0.2.1'), 'a recently failed client is still counted');
    assert.ok(!blocked(throttle, '192.0.2.2'), 'the least recently failed client was forgotten');
  });

  it('answers 401 again when the window since the first failure is over, with Retry-After counting down until then', () => {
    let now = 1_000_000;
    const throttle = new AuthThrottle({ maxFailures: 1, windowSeconds: 60 }, () => now);
    failTimes(throttle, '192.0.2.9', 1);
    now += 20_000;
    assert.equal(throttle.fail('192.0.2.9', 'key', invalid).answer.headers?.['Retry-After'], '40');
    now += 40_000;
    assert.ok(!blocked(throttle, '192.0.2.9'), 'a new window: this failure is its first');
  });
});
