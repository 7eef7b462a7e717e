import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ServiceError } from '../service-errors.js';
import { clientKey as throttleKey } from '../http/client-key.js';
import { AuthThrottle } from './throttle.js';

const blocked = (throttle: AuthThrottle, address: string) => {
  try {
    throttle.assertAllowed(address);
    return false;
  } catch (error) {
    assert.ok(error instanceof ServiceError && error.status === 429);
    return true;
  }
};

describe('the failed-credential throttle', () => {
  it('counts an IPv6 client by its /64, and an IPv4-mapped address as the IPv4 address', () => {
    assert.equal(throttleKey('2001:db8:1:2:aaaa::1'), throttleKey('2001:db8:1:2:ffff:ffff:ffff:ffff'));
    assert.notEqual(throttleKey('2001:db8:1:2::1'), throttleKey('2001:db8:1:3::1'));
    assert.equal(throttleKey('::ffff:192.0.2.7'), '192.0.2.7');
    assert.notEqual(throttleKey('192.0.2.7'), throttleKey('192.0.2.8'));

    const throttle = new AuthThrottle({ maxFailures: 3, windowSeconds: 60 });
    // A host rotating through the addresses of its /64 is still one client.
    for (const address of ['2001:db8:0:7::1', '2001:db8:0:7::2', '2001:db8:0:7:abcd:1234:5678:9abc']) throttle.recordFailure(address);
    assert.ok(blocked(throttle, '2001:db8:0:7:ffff::42'));
    assert.ok(!blocked(throttle, '2001:db8:0:8::1'), 'the next /64 is another client');
  });

  it('keeps at most its capacity of clients, however many addresses fail', () => {
    const throttle = new AuthThrottle({ maxFailures: 10, windowSeconds: 300, capacity: 1_000 });
    for (let i = 0; i < 60_000; i++) throttle.recordFailure(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    assert.equal(throttle.size, 1_000);
    for (let i = 0; i < 60_000; i++) throttle.recordFailure(`2001:db8:${(i >> 8).toString(16)}:${(i & 255).toString(16)}::1`);
    assert.equal(throttle.size, 1_000);
  });

  it('when full, forgets the client whose last failure is oldest, and keeps the others counting', () => {
    const throttle = new AuthThrottle({ maxFailures: 2, windowSeconds: 300, capacity: 100 });
    throttle.recordFailure('192.0.2.1');
    throttle.recordFailure('192.0.2.2');
    throttle.recordFailure('192.0.2.2');
    assert.ok(blocked(throttle, '192.0.2.2'));
    throttle.recordFailure('192.0.2.1'); // 192.0.2.1 failed last: .2 is now the oldest
    for (let i = 0; i < 99; i++) throttle.recordFailure(`198.51.100.${i}`);
    assert.ok(!blocked(throttle, '192.0.2.2'), 'the least recently failed client was forgotten');
    assert.ok(blocked(throttle, '192.0.2.1'), 'a recently failed client is still counted');
  });

  it('lets a client in again when the window since its first failure is over, with Retry-After until then', async () => {
    const throttle = new AuthThrottle({ maxFailures: 1, windowSeconds: 1 });
    throttle.recordFailure('192.0.2.9');
    assert.throws(
      () => throttle.assertAllowed('192.0.2.9'),
      (error: ServiceError) => error.headers?.['Retry-After'] === '1',
    );
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    assert.ok(!blocked(throttle, '192.0.2.9'));
  });
});
