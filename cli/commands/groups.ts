/** `group`: groups, and a user's memberships. */
import type { Command } from 'commander';
import { type Group, type WorkspaceClient } from 'workspace-user-api/client';
import { terminalSafe } from '../../lib/terminal-output.js';
import { CliError, dataOf, UsageError } from '../errors.js';
import { resolveUser } from '../users.js';
import type { CommandContext } from '../command-context.js';
import { wholeNumberFrom } from '../command-options.js';

export function addGroupCommands(program: Command, { io, client, note, json }: CommandContext): void {
  const group = program.command('group').description("groups, and a user's memberships");
  for (const action of ['add', 'remove'] as const) {
    group
      .command(action)
      .description(action === 'add' ? 'add a user to a group' : 'remove a user from a group')
      .argument('<user>', 'a username or user_id')
      .argument('<group>', 'a group name or group_id')
      .action(async (named: string, nameOrId: string) => {
        const sdk = client();
        const { user } = await resolveUser(sdk, named);
        const { group_id, name } = await resolveGroup(sdk, nameOrId);
        const body = { target_user: { user_id: user.user_id }, target_group: { group_id } };
        dataOf(action === 'add' ? await sdk.addUserGroup(body) : await sdk.removeUserGroup(body));
        note(
          `${action === 'add' ? 'added' : 'removed'} ${terminalSafe(user.username)} ${action === 'add' ? 'to' : 'from'} ${terminalSafe(name)}`,
        );
      });
  }

  group
    .command('create')
    .description('create a group (needs groups_create)')
    .argument('<name>', "the group's name")
    .option('--description <text>')
    .option('--priority <n>', "Kasm's priority, 0 to 4096: the lowest number wins (default 4096)", wholeNumberFrom(0))
    .option('--json', 'print JSON: the group')
    .action(async (name: string, options: { description?: string; priority?: number; json?: boolean }) => {
      const { group: created } = dataOf(
        await client().createGroup({
          target_group: {
            name,
            ...(options.description !== undefined ? { description: options.description } : {}),
            ...(options.priority !== undefined ? { priority: options.priority } : {}),
          },
        }),
      );
      if (options.json) return void json(created);
      note(`created ${terminalSafe(created.name)} (${created.group_id})`);
    });

  group
    .command('rename')
    .description('rename a group (needs groups_modify; a system group keeps its name)')
    .argument('<group>', 'a group name or group_id')
    .argument('<new-name>', 'its new name')
    .action(async (nameOrId: string, newName: string) => {
      const sdk = client();
      const { group_id, name } = await resolveGroup(sdk, nameOrId);
      const { group: renamed } = dataOf(await sdk.updateGroup({ target_group: { group_id, name: newName } }));
      note(`renamed ${terminalSafe(name)} to ${terminalSafe(renamed.name)}`);
    });

  group
    .command('delete')
    .description('delete a group and its memberships; its users stay (asks first, on a terminal; needs groups_delete)')
    .argument('<group>', 'a group name or group_id')
    .option('--yes', 'do not ask')
    .action(async (nameOrId: string, options: { yes?: boolean }) => {
      const sdk = client();
      if (!options.yes && !io.interactive) throw new UsageError('not deleting without --yes when not on a terminal');
      const { group_id, name } = await resolveGroup(sdk, nameOrId);
      if (!options.yes && !(await io.prompt.confirm(`Delete the group ${terminalSafe(name)} (${group_id})?`)))
        throw new CliError('not deleted');
      dataOf(await sdk.deleteGroup({ target_group: { group_id } }));
      note(`deleted the group ${terminalSafe(name)}`);
    });
}

/** A group by id, or by name (ignoring case), as getGroups lists them. */
async function resolveGroup(sdk: WorkspaceClient, nameOrId: string): Promise<Group> {
  const { groups } = dataOf(await sdk.getGroups());
  const group =
    groups.find((candidate) => candidate.group_id === nameOrId) ??
    groups.find((candidate) => candidate.name.toLowerCase() === nameOrId.toLowerCase());
  if (!group)
    throw new CliError(
      `no group "${terminalSafe(nameOrId)}"; the groups are: ${groups.map((candidate) => terminalSafe(candidate.name)).join(', ')}`,
    );
  return group;
}
