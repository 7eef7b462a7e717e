/**
 * A replacement or PATCH: computed on the resource as read, written only if
 * the resource is still at the version read. With If-Match the version read
 * must be one it names, and there is one attempt (412 otherwise); without, a
 * writer that changed the resource in between makes this one read it again
 * and retry, a few times, with a short random pause (p-retry).
 */
import pRetry, { AbortError } from 'p-retry';
import { StaleVersionError, type ExpectedVersions } from '../store/records.js';

/** How often a write without If-Match is tried against writers that keep winning. */
const ATTEMPTS = 5;

export async function writeAtVersionRead<Read extends { version: number }, Written>(
  expected: ExpectedVersions | undefined,
  read: () => Promise<Read>,
  write: (current: Read) => Promise<Written>,
  stale: (current: number) => Error,
): Promise<Written> {
  const attempt = async () => {
    const current = await read();
    if (expected && !expected.includes(current.version)) throw new AbortError(stale(current.version));
    try {
      return await write(current);
    } catch (error) {
      // Only a lost race is worth another attempt, and only when the client named no version.
      if (error instanceof StaleVersionError && !expected) throw error;
      throw new AbortError(error instanceof StaleVersionError ? stale(error.current) : (error as Error));
    }
  };
  try {
    return await pRetry(attempt, { retries: ATTEMPTS - 1, minTimeout: 1, maxTimeout: 20, randomize: true });
  } catch (error) {
    if (error instanceof StaleVersionError) throw stale(error.current);
    throw error;
  }
}
