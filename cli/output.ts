/**
 * What the workspace-users CLI shows of users. How anything is printed (JSON,
 * tables that fit the terminal, escaping what could act on it) is
 * lib/terminal-output.ts, shared with `npm run admin`.
 */
import type { User } from 'workspace-user-api/client';
import { printTable, type Screen, terminalSafe } from '../lib/terminal-output.js';

const flags = (user: User) => [user.locked ? 'locked' : '', user.disabled ? 'disabled' : ''].filter(Boolean).join(', ') || 'active';

/** One row per user; the user_id is never shortened (it is what the other commands take), the groups come last. */
export function printUsers(users: readonly User[], screen: Screen): void {
  printTable(
    ['user_id', 'username', 'name', 'status', 'groups'],
    users.map((user) => [
      user.user_id,
      user.username,
      `${user.first_name} ${user.last_name}`.trim(),
      flags(user),
      user.groups.map((group) => group.name ?? group.group_id).join(', '),
    ]),
    screen,
    [0],
  );
}

/** One user, field by field; with its version (an ETag, for `--if-match`) when known. */
export function printUser(user: User, screen: Screen, version?: string): void {
  const rows: [string, string][] = [
    ['user_id', user.user_id],
    ['username', user.username],
    ['first_name', user.first_name],
    ['last_name', user.last_name],
    ['phone', user.phone],
    ['organization', user.organization],
    ['status', flags(user)],
    ['groups', user.groups.map((group) => group.name ?? group.group_id).join(', ')],
    ['created', user.created],
    ['password_set_date', user.password_set_date ?? 'no password'],
    ['last_session', user.last_session ?? 'never'],
    ...(version ? [['version', version] as [string, string]] : []),
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  screen.write(`${rows.map(([name, value]) => `${name.padEnd(width)}  ${terminalSafe(value)}`).join('\n')}\n`);
}
