/**
 * When the SDK tries a call again, and how long it waits first.
 *
 * A call is tried again after an answer that says "not now": 429, 502, 503 or
 * 504, or no answer at all (a dropped connection, a timeout). An operation
 * that does the same thing however often it is sent (the reads, update_user,
 * delete_user, the membership changes, the key check …) is retried after any
 * of them. So is any call sent with an Idempotency-Key, which the SDK gives
 * every create (create_user, create_group, create_webhook) unless told
 * otherwise: the service makes the change once however often the call comes
 * (docs/api.md, "Retries"), and a retry that arrives while the first attempt
 * still runs (409 `idempotency_key_in_use`) is retried too. A create sent
 * without a key is retried only after an answer the service itself gave in the
 * contract's error shape with 429 or 503 (the throttle, a database that is
 * away, too many connections): the service stored nothing then. After a
 * dropped connection or a proxy's 502 or 504 the user may have been created,
 * and a second attempt would make a second one or a 409 that hides the first.
 *
 * The wait is exponential backoff with full jitter (a random time up to
 * base × 2^retry, at most the cap), or what Retry-After asks when the answer
 * has one. A Retry-After longer than the cap or past the call's deadline ends
 * the retries: the SDK never comes back sooner than it was asked to.
 */
import type { operations } from '../generated/workspace/types.js';

export interface RetryOptions {
  /** Attempts after the first; default 2. 0 turns retrying off (as does `retry: false`). */
  retries?: number | undefined;
  /** The first wait's upper bound, doubled for each retry after; default 250 ms. */
  baseDelayMs?: number | undefined;
  /** The longest wait between two attempts, Retry-After included; default 10 000 ms. */
  maxDelayMs?: number | undefined;
  /** The longest a call may take, every attempt and wait included; default 60 000 ms. */
  deadlineMs?: number | undefined;
}

export type RetryPolicy = Required<{ [Key in keyof RetryOptions]: NonNullable<RetryOptions[Key]> }>;

export const DEFAULT_RETRY: RetryPolicy = { retries: 2, baseDelayMs: 250, maxDelayMs: 10_000, deadlineMs: 60_000 };

/** The options as a policy: `false` is no retries; what is left out has its default. */
export function retryPolicy(options: RetryOptions | false | undefined): RetryPolicy {
  if (options === false) return { ...DEFAULT_RETRY, retries: 0 };
  const defined = Object.fromEntries(Object.entries(options ?? {}).filter(([, value]) => value !== undefined));
  return { ...DEFAULT_RETRY, ...defined };
}

type OperationId = keyof operations;

/** Operations that would make a second record if sent twice: without an Idempotency-Key, not sent twice unless the service said it did nothing. */
export const CREATES: ReadonlySet<OperationId> = new Set<OperationId>(['createUser', 'createGroup', 'createWebhook']);

const RETRIED_STATUSES = new Set([429, 502, 503, 504]);
/** Statuses with which the service itself says it did nothing: the throttle, a database away, a full service. */
const NOTHING_DONE_STATUSES = new Set([429, 503]);

/** What came of one attempt, as far as retrying is concerned; `code` is the service's error code, when it gave one. */
export type Attempt = { answered: false } | { answered: true; status: number; serviceError: boolean; code?: string | undefined };

/** Whether an attempt with this outcome may be followed by another; `idempotent` when the call carries an Idempotency-Key. */
export function mayRetry(operation: OperationId, attempt: Attempt, { idempotent = false }: { idempotent?: boolean } = {}): boolean {
  if (idempotent && attempt.answered && attempt.status === 409 && attempt.code === 'idempotency_key_in_use') return true;
  if (idempotent || !CREATES.has(operation)) return !attempt.answered || RETRIED_STATUSES.has(attempt.status);
  return attempt.answered && attempt.serviceError && NOTHING_DONE_STATUSES.has(attempt.status);
}

/** Retry-After as milliseconds from `now`: delay-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null | undefined, now: number): number | undefined {
  if (!header) return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The wait before retry number `retry` (1 for the first): full jitter, up to base × 2^(retry-1), at most the cap. */
export function backoffMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1)));
}

/**
 * How long to wait before the next attempt, or undefined to stop: no retries
 * left, an outcome that may not be retried, a Retry-After longer than the cap,
 * or a wait that would end past the deadline.
 */
export function nextWait(
  operation: OperationId,
  attempt: Attempt & { retryAfter?: string | null },
  { attempts, startedAt, now, idempotent = false }: { attempts: number; startedAt: number; now: number; idempotent?: boolean },
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | undefined {
  if (attempts > policy.retries || !mayRetry(operation, attempt, { idempotent })) return undefined;
  const asked = attempt.answered ? retryAfterMs(attempt.retryAfter, now) : undefined;
  if (asked !== undefined && asked > policy.maxDelayMs) return undefined;
  const wait = asked ?? backoffMs(attempts, policy, random);
  return now + wait < startedAt + policy.deadlineMs ? wait : undefined;
}
