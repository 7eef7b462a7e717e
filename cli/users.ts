/**
 * A user named on the command line, by user_id or by username: one lookup
 * for every command that names a user, and one message when it names none
 * or two.
 */
import type { User, WorkspaceClient } from 'workspace-user-api/client';
import { terminalSafe } from '../lib/terminal-output.js';
import { CliError, describe } from './errors.js';

/** What the service takes as a user_id: 32 hex digits, or the dashed UUID form some Kasm clients send. */
const LOOKS_LIKE_USER_ID = /^(?:[0-9a-f]{32}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i;

type UserLookup = { user_id: string } | { username: string };

/** A user as found, with the version it is at (the answer's ETag), for `--if-match`. */
export interface FoundUser {
  user: User;
  version: string | undefined;
}

/** The user, undefined when there is none by that name or id (or the service could hold none: a name it would refuse). */
async function lookUp(sdk: WorkspaceClient, target_user: UserLookup): Promise<FoundUser | undefined> {
  const { data, error, etag } = await sdk.getUser({ target_user });
  if (data) return { user: data.user, version: etag };
  if (['user_not_found', 'invalid_request', 'invalid_username'].includes(error.code)) return undefined;
  throw new CliError(describe(error));
}

export async function resolveUser(sdk: WorkspaceClient, nameOrId: string): Promise<FoundUser> {
  const byId = LOOKS_LIKE_USER_ID.test(nameOrId) ? await lookUp(sdk, { user_id: nameOrId }) : undefined;
  const byName = nameOrId.trim() === '' ? undefined : await lookUp(sdk, { username: nameOrId });
  if (byId && byName && byId.user.user_id !== byName.user.user_id) {
    throw new CliError(
      `"${terminalSafe(nameOrId)}" is the user_id of ${terminalSafe(byId.user.username)} and the username of the user ${byName.user.user_id}; ` +
        'name the user by the other one',
    );
  }
  const user = byId ?? byName;
  if (!user) throw new CliError(`no user has the user_id or username "${terminalSafe(nameOrId)}"`);
  return user;
}
