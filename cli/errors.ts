/**
 * How the CLI ends (docs/sdks.md, exit codes): 0 when it did what it was
 * asked, 1 when an operation failed (the service refused it, a file could not
 * be read), 2 when it was asked wrongly (an unknown option, a missing
 * argument, options that exclude each other, no API key).
 */
import type { ApiError, ClientFailure } from 'workspace-user-api/client';
import { terminalSafe } from '../lib/terminal-output.js';

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** An operation that failed: its message on stderr, exit 1. */
export class CliError extends Error {
  readonly exitCode: number = EXIT.failed;
}

/** A command given wrongly: its message on stderr, exit 2. */
export class UsageError extends CliError {
  override readonly exitCode: number = EXIT.usage;
}

/** The service's own words for what went wrong, e.g. "User not found (user_not_found)". */
export function describe(error: ApiError | ClientFailure): string {
  return terminalSafe(`${error.error_message} (${error.code})`);
}

/** Unwraps an SDK result, or stops with the service's error message. */
export function dataOf<T>(result: { data?: T; error?: ApiError | ClientFailure }): T {
  if (result.error || result.data === undefined)
    throw new CliError(result.error ? describe(result.error) : 'empty answer from the service');
  return result.data;
}
