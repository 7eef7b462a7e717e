/**
 * Throttles failed credential checks per client: after `maxFailures` failures
 * within `windowSeconds`, every request from that client gets 429 until the
 * window, counted from its first failure, ends. Successes do not reset the
 * count, so a valid low-privilege key cannot be used to keep guessing.
 *
 * A client is an IPv4 address, or an IPv6 /64 network: one host is usually
 * given a whole /64, so counting single IPv6 addresses would let it rotate
 * through 2^64 of them.
 *
 * The counts live in this process's memory, in an LRU table of at most
 * `capacity` clients (about 200 bytes each): when it is full, the client whose
 * last failure is oldest is forgotten. Several instances each count their own.
 */
import { LRUCache } from 'lru-cache';
import type { AuthThrottleConfig } from '../config.js';
import { clientKey } from '../http/client-key.js';
import { ServiceError } from '../service-errors.js';

export const DEFAULT_THROTTLE_CAPACITY = 100_000;

interface FailureCount {
  failures: number;
  /** When the window, counted from the first failure, ends (ms since the epoch). */
  resetAt: number;
}

export class AuthThrottle {
  readonly #counts: LRUCache<string, FailureCount>;
  readonly #maxFailures: number;
  readonly #windowMs: number;

  constructor({ maxFailures, windowSeconds, capacity = DEFAULT_THROTTLE_CAPACITY }: AuthThrottleConfig) {
    this.#maxFailures = maxFailures;
    this.#windowMs = windowSeconds * 1000;
    // Entries expire with their window; lru-cache drops expired ones as it meets them and when full.
    this.#counts = new LRUCache({ max: capacity, ttl: this.#windowMs, ttlAutopurge: false });
  }

  /** How many clients are remembered now (bounded by the capacity). */
  get size(): number {
    return this.#counts.size;
  }

  /** Throws the 429 when this client has used up its failures. */
  assertAllowed(address: string): void {
    const count = this.#counts.get(clientKey(address), { updateAgeOnGet: false });
    if (count && count.failures >= this.#maxFailures) throw rateLimited(count.resetAt - Date.now());
  }

  recordFailure(address: string): void {
    const key = clientKey(address);
    const count = this.#counts.get(key, { updateAgeOnGet: false });
    if (count) {
      count.failures += 1;
      // Refresh its place in the LRU order, keeping the window that started with the first failure.
      this.#counts.set(key, count, { ttl: Math.max(1, count.resetAt - Date.now()) });
    } else {
      this.#counts.set(key, { failures: 1, resetAt: Date.now() + this.#windowMs });
    }
  }
}

function rateLimited(msLeft: number): ServiceError {
  const seconds = Math.max(1, Math.ceil(msLeft / 1000));
  return new ServiceError(429, 'rate_limited', `Too many failed credential attempts; retry in ${seconds} seconds`, undefined, {
    'Retry-After': String(seconds),
  });
}
