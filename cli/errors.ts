/** The CLI's failures, ending in exit 1 and 2 (lib/command-line.ts; docs/sdks.md, exit codes), and the service's errors as messages. */
import type { ApiError, ClientFailure } from 'workspace-user-api/client';
import { CommandFailure } from '../lib/command-line.js';
import { terminalSafe } from '../lib/terminal-output.js';

export { CommandFailure as CliError, UsageFailure as UsageError } from '../lib/command-line.js';

/** The service's own words for what went wrong, e.g. "User not found (user_not_found)". */
export function describe(error: ApiError | ClientFailure): string {
  return terminalSafe(`${error.error_message} (${error.code})`);
}

/** Unwraps an SDK result, or stops with the service's error message. */
export function dataOf<T>(result: { data?: T; error?: ApiError | ClientFailure }): T {
  if (result.error || result.data === undefined)
    throw new CommandFailure(result.error ? describe(result.error) : 'empty answer from the service');
  return result.data;
}
