/**
 * When a failed delivery is tried again: Standard Webhooks 1.0's schedule by
 * default (at once, then after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h
 * and 24 h), or WEBHOOK_RETRY_SCHEDULE (`5s,5m,30m,2h`), each wait spread by
 * a random ±20 % so that a receiver back from an outage is not met by every
 * delivery at once; `Retry-After` on a 429 or 503 is honoured instead.
 */
export const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,14h,20h,24h';

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000 } as const;

/** The waits after each failed attempt, in milliseconds; throws with what is wrong in the text. */
export function parseRetrySchedule(text: string): number[] {
  const waits = text.split(',').map((part) => part.trim());
  return waits.map((wait) => {
    const match = /^(\d{1,6})([smh])$/.exec(wait);
    if (!match) throw new Error(`"${wait}" is not a duration such as 5s, 5m or 2h`);
    return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  });
}

/** The longest a Retry-After is followed for. */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** A Retry-After header's wait (seconds, or an HTTP date), or undefined when it says none. */
export function retryAfterMs(header: string | undefined, now: number): number | undefined {
  if (header === undefined) return undefined;
  const seconds = /^\d+$/.test(header.trim()) ? Number(header.trim()) * 1000 : Date.parse(header) - now;
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, MAX_RETRY_AFTER_MS) : undefined;
}

/**
 * When to try again after the attempt numbered `attempt` (from 1) failed, or undefined when
 * the schedule is spent; `random` in [0, 1) spreads the wait.
 */
export function nextAttemptAt(
  schedule: readonly number[],
  attempt: number,
  now: number,
  random: () => number,
  retryAfter?: number,
): number | undefined {
  const wait = schedule[attempt - 1];
  if (wait === undefined) return undefined;
  if (retryAfter !== undefined) return now + retryAfter;
  return now + Math.round(wait * (0.8 + 0.4 * random()));
}
