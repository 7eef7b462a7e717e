/**
 * Throttles failed credential checks per client address: after `maxFailures`
 * failures within `windowSeconds`, every request from that address gets 429
 * until the window, counted from its first failure, ends. Successes do not
 * reset the count, so a valid low-privilege key cannot be used to keep guessing.
 *
 * The counts live in this process's memory; several instances each count their own.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { AuthThrottleConfig } from '../config.js';
import { ApiError } from '../errors.js';

export class AuthThrottle {
  readonly #limiter: RateLimiterMemory;
  readonly #maxFailures: number;

  constructor({ maxFailures, windowSeconds }: AuthThrottleConfig) {
    this.#maxFailures = maxFailures;
    this.#limiter = new RateLimiterMemory({ points: maxFailures, duration: windowSeconds });
  }

  /** Throws the 429 when this address has used up its failures. */
  async assertAllowed(address: string): Promise<void> {
    const state = await this.#limiter.get(address);
    if (state && state.consumedPoints >= this.#maxFailures) throw rateLimited(state);
  }

  async recordFailure(address: string): Promise<void> {
    try {
      await this.#limiter.consume(address);
    } catch (rejection) {
      // Past the limit: the next request from this address is refused by assertAllowed.
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
    }
  }
}

function rateLimited(state: RateLimiterRes): ApiError {
  const seconds = Math.max(1, Math.ceil(state.msBeforeNext / 1000));
  return new ApiError(429, 'rate_limited', `Too many failed credential attempts; retry in ${seconds} seconds`, undefined, {
    'Retry-After': String(seconds),
  });
}
