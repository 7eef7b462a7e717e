/**
 * What the workspace-users CLI shows of users and failures. How anything is
 * printed (JSON, tables, escaping what could act on a terminal) is
 * lib/terminal-output.ts, shared with `npm run admin`.
 */
import { printTable, terminalSafe } from '../lib/terminal-output.js';
import type { ApiError, ClientFailure, User } from 'workspace-user-api/client';

export class CliError extends Error {}

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

const flags = (user: User) => [user.locked ? 'locked' : '', user.disabled ? 'disabled' : ''].filter(Boolean).join(', ') || 'active';

export function printUsers(users: User[]): void {
  printTable(
    ['user_id', 'username', 'name', 'status', 'groups'],
    users.map((user) => [
      user.user_id,
      user.username,
      `${user.first_name} ${user.last_name}`.trim(),
      flags(user),
      user.groups.map((group) => group.name).join(', '),
    ]),
  );
}

export function printUser(user: User): void {
  const rows: [string, string][] = [
    ['user_id', user.user_id],
    ['username', user.username],
    ['first_name', user.first_name],
    ['last_name', user.last_name],
    ['phone', user.phone],
    ['organization', user.organization],
    ['status', flags(user)],
    ['groups', user.groups.map((group) => group.name).join(', ')],
    ['created', user.created],
    ['password_set_date', user.password_set_date ?? 'no password'],
    ['last_session', user.last_session ?? 'never'],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  process.stdout.write(`${rows.map(([name, value]) => `${name.padEnd(width)}  ${terminalSafe(value)}`).join('\n')}\n`);
}
