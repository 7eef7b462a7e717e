/**
 * Type tests, checked by `npm run typecheck` (never run): each
 * `@ts-expect-error` must meet an error, or the compile fails.
 */
import { createWorkspaceClient, updateUser, type WorkspaceClient } from './index.js';

declare const sdk: WorkspaceClient;

export async function shapesTheCompilerRefuses(): Promise<void> {
  // @ts-expect-error target_user.user_id is required
  await updateUser({ target_user: { first_name: 'Ada' } });

  // @ts-expect-error locked is a boolean
  await updateUser({ target_user: { user_id: 'a'.repeat(32), locked: 'yes' } });

  // @ts-expect-error realm is not a field of target_user (no mass assignment)
  await updateUser({ target_user: { user_id: 'a'.repeat(32), realm: 'ldap' } });

  // The call must not compile, which is the check; lint sees only a call of an unknown type.
  /* eslint-disable @typescript-eslint/no-unsafe-call */
  // @ts-expect-error there is no operation named updateUsers
  await sdk.updateUsers({ target_user: { user_id: 'a'.repeat(32) } });
  /* eslint-enable @typescript-eslint/no-unsafe-call */

  // @ts-expect-error createUser needs a username
  await sdk.createUser({ target_user: { first_name: 'Ada' } });

  // @ts-expect-error page_size is a number
  await sdk.getUsers({ page_size: '10' });

  // @ts-expect-error only updateUser and deleteUser take If-Match
  await sdk.getGroups({}, { ifMatch: 'W/"1"' });

  // @ts-expect-error a read takes no Idempotency-Key: it changes nothing
  await sdk.getUser({ target_user: { user_id: 'a'.repeat(32) } }, { idempotencyKey: 'k' });
}

export async function shapesTheCompilerAccepts(): Promise<string | undefined> {
  const result = await updateUser({ target_user: { user_id: 'a'.repeat(32), first_name: 'Ada' } });
  if (result.error) return result.error.error_message;
  const { user } = result.data;
  const names: string[] = user.groups.map((group) => group.name ?? group.group_id);
  await createWorkspaceClient({ baseUrl: 'http://127.0.0.1:8080' }).getGroups();
  const read = await sdk.getUser({ target_user: { user_id: user.user_id } });
  await sdk.deleteUser({ target_user: { user_id: user.user_id } }, { ifMatch: read.etag, idempotencyKey: 'job-42-delete' });
  await sdk.createGroup({ target_group: { name: 'Staff' } }, { idempotencyKey: 'job-42-staff' });
  return `${user.username} ${names.join(',')}`;
}
