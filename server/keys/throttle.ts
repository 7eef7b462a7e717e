/**
 * Throttles failed credential checks, to bound what failures cost and to
 * make probing loud, never to lock anyone out. A key's secret carries 256
 * random bits: nobody can guess one, so valid credentials are always let in,
 * whatever else has failed. What changes is the answer to failures: after
 * `maxFailures` failures from one client with one key id within
 * `windowSeconds` (counted from the first), further failures get 429 with
 * Retry-After instead of 401, and one warning is logged.
 *
 * A client is an IPv4 address, or an IPv6 /64 network (http/client-key.ts).
 * Counting per key id as well means that one misconfigured script behind a
 * proxy or a NAT is throttled for its own key id and no one else's.
 *
 * The counts live in this process's memory, in an LRU table of at most
 * `capacity` entries (about 200 bytes each): when it is full, the entry whose
 * last failure is oldest is forgotten. Several instances each count their own,
 * so a client spread over N instances gets up to N × maxFailures 401s.
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

  readonly #now: () => number;

  constructor({ maxFailures, windowSeconds, capacity = DEFAULT_THROTTLE_CAPACITY }: AuthThrottleConfig, now: () => number = Date.now) {
    this.#now = now;
    this.#maxFailures = maxFailures;
    this.#windowMs = windowSeconds * 1000;
    // Entries expire with their window; lru-cache drops expired ones as it meets them and when full.
    this.#counts = new LRUCache({ max: capacity, ttl: this.#windowMs, ttlAutopurge: false });
  }

  /** How many (client, key id) pairs are remembered now (bounded by the capacity). */
  get size(): number {
    return this.#counts.size;
  }

  /**
   * Counts a failed check by this client with this key id (as sent, known or
   * not: the answer must not tell which key ids exist) and returns its answer:
   * the 401, or the 429 once the failures are used up; `throttledNow` on the
   * first failure past the limit, for the one warning.
   */
  fail(address: string, apiKey: string, invalid: ServiceError): { answer: ServiceError; throttledNow: boolean } {
    const key = `${clientKey(address)} ${apiKey}`;
    const now = this.#now();
    const count = this.#counts.get(key, { updateAgeOnGet: false });
    // The LRU table forgets a window once it is over, by its own clock; the window's end decides, by ours.
    if (!count || count.resetAt <= now) {
      // The first failure of a window is always answered 401: the limit is at least 1.
      this.#counts.set(key, { failures: 1, resetAt: now + this.#windowMs });
      return { answer: invalid, throttledNow: false };
    }
    count.failures += 1;
    // Refresh its place in the LRU order, keeping the window that started with the first failure.
    this.#counts.set(key, count, { ttl: Math.max(1, count.resetAt - now) });
    if (count.failures <= this.#maxFailures) return { answer: invalid, throttledNow: false };
    return { answer: rateLimited(count.resetAt - now), throttledNow: count.failures === this.#maxFailures + 1 };
  }
}

function rateLimited(msLeft: number): ServiceError {
  const seconds = Math.max(1, Math.ceil(msLeft / 1000));
  return new ServiceError(429, 'rate_limited', `Too many failed credential checks with this key; retry in ${seconds} seconds`, undefined, {
    'Retry-After': String(seconds),
  });
}
