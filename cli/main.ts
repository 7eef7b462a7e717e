#!/usr/bin/env node
/**
 * workspace-users: the client utilities (docs/spec §1) at a terminal,
 * built on the SDK. Configured by WORKSPACE_URL, WORKSPACE_API_KEY and
 * WORKSPACE_API_KEY_SECRET, or the matching flags.
 *
 * Exit 0 on success; on failure, the service's error_message on stderr and exit 1.
 */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  type components,
  createWorkspaceClient,
  eachUser,
  type Group,
  type User,
  WorkspaceCallError,
  type WorkspaceClient,
} from 'workspace-user-api/client';
import { importUsers } from './import-users.js';
import { printAuditEvents, printJson, printTable, terminalSafe } from '../lib/terminal-output.js';
import { CliError, dataOf, describe, printUser, printUsers } from './output.js';
import { confirm, passwordFrom } from './prompts.js';
import { isoTime } from '../lib/cli-arguments.js';

const USER_ID = /^[0-9a-f]{32}$/;

type SortableField = NonNullable<components['schemas']['GetUsersRequest']['sort_by']>;

/**
 * The fields get_users sorts by. The CLI ships without the contract, so the
 * list is written here; `satisfies` holds it to the contract's enum both ways
 * (a field missing or extra fails the build).
 */
const SORTABLE_FIELDS = Object.keys({
  username: true,
  created: true,
  first_name: true,
  last_name: true,
} satisfies Record<SortableField, true>) as SortableField[];

function wholeNumberFrom(least: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < least) throw new InvalidArgumentError(`expected a whole number of at least ${least}`);
    return number;
  };
}
const positiveInteger = wholeNumberFrom(1);

const program = new Command('workspace-users')
  .description('Manage the users of a workspace service from the terminal.')
  .addOption(new Option('--url <url>', 'the service address').env('WORKSPACE_URL').default('http://127.0.0.1:8080'))
  .addOption(new Option('--api-key <key>', 'the API key').env('WORKSPACE_API_KEY'))
  .addOption(
    new Option('--api-key-secret <secret>', 'the API key secret (prefer the environment variable)').env('WORKSPACE_API_KEY_SECRET'),
  )
  .showHelpAfterError()
  .configureOutput({ writeErr: (text) => process.stderr.write(text) });

function client(): WorkspaceClient {
  const { url, apiKey, apiKeySecret } = program.opts<{ url: string; apiKey?: string; apiKeySecret?: string }>();
  return createWorkspaceClient({
    baseUrl: url,
    ...(apiKey ? { api_key: apiKey } : {}),
    ...(apiKeySecret ? { api_key_secret: apiKeySecret } : {}),
  });
}

const passwordOptions = (command: Command) =>
  command
    .option('--password-stdin', 'read the new password from standard input')
    .option('--prompt-password', 'ask for the new password without echoing it (on a terminal)');

program
  .command('auth')
  .description('check the API key and show what it may do')
  .option('--json', 'print JSON')
  .action(async (options: { json?: boolean }) => {
    const key = dataOf(await client().validateCredentials());
    if (options.json) return printJson(key);
    process.stdout.write(
      `Valid key ${key.api_key} ("${terminalSafe(key.name)}")\npermissions: ${key.permissions.join(', ') || 'none'}\nexpires: ${key.expires ?? 'never'}\n`,
    );
  });

program
  .command('list')
  .description("list every user (one call, as Kasm's get_users), or one page with --page, --cursor or --page-size")
  .addOption(
    new Option('--page <n>', 'the page, counting from 0 as Kasm does (default 0)')
      .argParser(wholeNumberFrom(0))
      .conflicts(['cursor', 'all']),
  )
  .addOption(new Option('--cursor <cursor>', 'the page after the one that printed this cursor').conflicts('all'))
  .option('--all', "every user, fetched a page at a time by cursor (for a directory past the service's GET_USERS_MAX)")
  .option('--page-size <n>', 'users per page (at most 500; default 100 when paging)', positiveInteger)
  .addOption(new Option('--sort-by <field>', 'the order (default username)').choices(SORTABLE_FIELDS))
  .addOption(new Option('--desc', 'in descending order'))
  .option('--json', 'print JSON')
  .action(
    async (options: {
      page?: number;
      cursor?: string;
      all?: boolean;
      pageSize?: number;
      sortBy?: SortableField;
      desc?: boolean;
      json?: boolean;
    }) => {
      const order = {
        ...(options.sortBy ? { sort_by: options.sortBy } : {}),
        ...(options.desc ? { sort_direction: 'desc' as const } : {}),
      };
      if (options.all) {
        const users: User[] = [];
        try {
          for await (const user of eachUser({ ...order, page_size: options.pageSize }, { client: client() })) users.push(user);
        } catch (error) {
          if (error instanceof WorkspaceCallError) throw new CliError(describe(error.error));
          throw error;
        }
        if (options.json) return printJson(users);
        printUsers(users);
        process.stdout.write(`${users.length} users\n`);
        return;
      }
      if (options.page === undefined && options.cursor === undefined && options.pageSize === undefined) {
        const everyone = dataOf(await client().getUsers(order));
        if (options.json) return printJson(everyone);
        printUsers(everyone.users);
        process.stdout.write(`${everyone.total} users\n`);
        return;
      }
      const start = options.cursor ? { cursor: options.cursor } : { page: options.page ?? 0 };
      const page = dataOf(await client().getUsers({ ...start, ...order, page_size: options.pageSize ?? 100 }));
      if (options.json) return printJson(page);
      printUsers(page.users);
      const where =
        page.page !== undefined && page.page_size
          ? `page ${page.page} of 0–${Math.max(1, Math.ceil(page.total / page.page_size)) - 1}`
          : `${page.users.length} users`;
      process.stdout.write(`${where}, ${page.total} users in all\n`);
      if (page.next_cursor) process.stdout.write(`next page: --cursor ${page.next_cursor}\n`);
    },
  );

program
  .command('get')
  .description('show one user')
  .argument('<user>', 'a user_id or a username')
  .option('--json', 'print JSON')
  .action(async (user: string, options: { json?: boolean }) => {
    const target_user = USER_ID.test(user) ? { user_id: user } : { username: user };
    const { user: found } = dataOf(await client().getUser({ target_user }));
    if (options.json) return printJson(found);
    printUser(found);
  });

passwordOptions(
  program
    .command('create')
    .description('create a user')
    .requiredOption('--username <username>', 'the username (stored trimmed and in lower case)')
    .option('--first-name <name>')
    .option('--last-name <name>')
    .option('--phone <phone>')
    .option('--organization <organization>')
    .option('--json', 'print JSON'),
).action(async (options: Record<string, string | boolean | undefined>) => {
  const password = await passwordFrom(options);
  const { user } = dataOf(
    await client().createUser({
      target_user: {
        username: String(options.username),
        ...(options.firstName !== undefined ? { first_name: String(options.firstName) } : {}),
        ...(options.lastName !== undefined ? { last_name: String(options.lastName) } : {}),
        ...(options.phone !== undefined ? { phone: String(options.phone) } : {}),
        ...(options.organization !== undefined ? { organization: String(options.organization) } : {}),
        ...(password !== undefined ? { password } : {}),
      },
    }),
  );
  if (options.json) return printJson(user);
  printUser(user);
});

passwordOptions(
  program
    .command('update')
    .description("change some of a user's fields; the others keep their values")
    .argument('<user_id>', 'the user to change')
    .option('--username <username>')
    .option('--first-name <name>')
    .option('--last-name <name>')
    .option('--phone <phone>')
    .option('--organization <organization>')
    .addOption(new Option('--lock', 'lock the account').conflicts('unlock'))
    .option('--unlock', 'unlock the account')
    .addOption(new Option('--disable', 'disable the account').conflicts('enable'))
    .option('--enable', 'enable the account')
    .option('--json', 'print JSON'),
).action(async (userId: string, options: Record<string, string | boolean | undefined>) => {
  const password = await passwordFrom(options);
  const changes = {
    ...(options.username !== undefined ? { username: String(options.username) } : {}),
    ...(options.firstName !== undefined ? { first_name: String(options.firstName) } : {}),
    ...(options.lastName !== undefined ? { last_name: String(options.lastName) } : {}),
    ...(options.phone !== undefined ? { phone: String(options.phone) } : {}),
    ...(options.organization !== undefined ? { organization: String(options.organization) } : {}),
    ...(options.lock ? { locked: true } : options.unlock ? { locked: false } : {}),
    ...(options.disable ? { disabled: true } : options.enable ? { disabled: false } : {}),
    ...(password !== undefined ? { password } : {}),
  };
  if (Object.keys(changes).length === 0) throw new CliError('nothing to change: give at least one field option (see --help)');
  const { user } = dataOf(await client().updateUser({ target_user: { user_id: userId, ...changes } }));
  if (options.json) return printJson(user);
  printUser(user);
});

program
  .command('delete')
  .description('delete a user (asks first, on a terminal)')
  .argument('<user_id>', 'the user to delete')
  .option('--yes', 'do not ask')
  .action(async (userId: string, options: { yes?: boolean }) => {
    const sdk = client();
    if (!options.yes) {
      if (!process.stdin.isTTY) throw new CliError('not deleting without --yes when not on a terminal');
      const { user } = dataOf(await sdk.getUser({ target_user: { user_id: userId } }));
      if (!(await confirm(`Delete ${terminalSafe(user.username)} (${user.user_id})?`))) throw new CliError('not deleted');
    }
    dataOf(await sdk.deleteUser({ target_user: { user_id: userId } }));
    process.stderr.write(`deleted ${userId}\n`);
  });

/** A group by id, or by name (ignoring case), as getGroups lists them. */
async function resolveGroup(sdk: WorkspaceClient, nameOrId: string): Promise<Group> {
  const { groups } = dataOf(await sdk.getGroups());
  const group =
    groups.find((candidate) => candidate.group_id === nameOrId) ??
    groups.find((candidate) => candidate.name.toLowerCase() === nameOrId.toLowerCase());
  if (!group)
    throw new CliError(`no group "${nameOrId}"; the groups are: ${groups.map((candidate) => terminalSafe(candidate.name)).join(', ')}`);
  return group;
}

program
  .command('logout')
  .description('log a user out everywhere: sessions started before now stop being valid (needs users_auth_session)')
  .argument('<user_id>', 'the user')
  .action(async (userId: string) => {
    dataOf(await client().logoutUser({ target_user: { user_id: userId } }));
    process.stderr.write(`logged out ${userId}: sessions started before now are no longer valid\n`);
  });

program
  .command('attributes')
  .description("show a user's attributes (Kasm's preferences), or change the ones given")
  .argument('<user_id>', 'the user')
  .addOption(new Option('--theme <theme>').choices(['Light', 'Dark', 'Auto']))
  .option('--language <tag>', 'a BCP 47 language tag, e.g. en-GB ("" to unset)')
  .option('--timezone <zone>', 'an IANA time zone, e.g. Europe/London ("" to unset)')
  .option('--ssh-key-file <file>', 'an OpenSSH public key file (the .pub), or - for standard input')
  .option('--json', 'print JSON')
  .action(
    async (
      userId: string,
      options: { theme?: 'Light' | 'Dark' | 'Auto'; language?: string; timezone?: string; sshKeyFile?: string; json?: boolean },
    ) => {
      const sdk = client();
      const changes = {
        ...(options.theme !== undefined ? { theme: options.theme } : {}),
        ...(options.language !== undefined ? { preferred_language: options.language } : {}),
        ...(options.timezone !== undefined ? { preferred_timezone: options.timezone } : {}),
        ...(options.sshKeyFile !== undefined
          ? { ssh_public_key: readFileSync(options.sshKeyFile === '-' ? 0 : options.sshKeyFile, 'utf8').trim() }
          : {}),
      };
      const { user_attributes } = dataOf(
        Object.keys(changes).length === 0
          ? await sdk.getAttributes({ target_user: { user_id: userId } })
          : await sdk.updateUserAttributes({ target_user_attributes: { user_id: userId, ...changes } }),
      );
      if (options.json) return printJson(user_attributes);
      const { user_id: _user, user_attributes_id: _id, ...shown } = user_attributes;
      printTable(
        ['attribute', 'value'],
        Object.entries(shown).map(([name, value]) => [name, value === null ? '(none)' : String(value)]),
      );
    },
  );

const group = program.command('group').description("groups, and a user's memberships");
for (const action of ['add', 'remove'] as const) {
  group
    .command(action)
    .description(action === 'add' ? 'add a user to a group' : 'remove a user from a group')
    .argument('<user_id>', 'the user')
    .argument('<group>', 'a group name or group_id')
    .action(async (userId: string, nameOrId: string) => {
      const sdk = client();
      const { group_id, name } = await resolveGroup(sdk, nameOrId);
      const body = { target_user: { user_id: userId }, target_group: { group_id } };
      dataOf(action === 'add' ? await sdk.addUserGroup(body) : await sdk.removeUserGroup(body));
      process.stderr.write(
        `${action === 'add' ? 'added' : 'removed'} ${userId} ${action === 'add' ? 'to' : 'from'} ${terminalSafe(name)}\n`,
      );
    });
}

group
  .command('create')
  .description('create a group (needs groups_create)')
  .argument('<name>', "the group's name")
  .option('--description <text>')
  .option('--priority <n>', "Kasm's priority, 0 to 4096: the lowest number wins (default 4096)", wholeNumberFrom(0))
  .option('--json', 'print JSON')
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
    if (options.json) return printJson(created);
    process.stderr.write(`created ${terminalSafe(created.name)} (${created.group_id})\n`);
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
    process.stderr.write(`renamed ${terminalSafe(name)} to ${terminalSafe(renamed.name)}\n`);
  });

group
  .command('delete')
  .description('delete a group and its memberships; its users stay (asks first, on a terminal; needs groups_delete)')
  .argument('<group>', 'a group name or group_id')
  .option('--yes', 'do not ask')
  .action(async (nameOrId: string, options: { yes?: boolean }) => {
    const sdk = client();
    const { group_id, name } = await resolveGroup(sdk, nameOrId);
    if (!options.yes) {
      if (!process.stdin.isTTY) throw new CliError('not deleting without --yes when not on a terminal');
      if (!(await confirm(`Delete the group ${terminalSafe(name)} (${group_id})?`))) throw new CliError('not deleted');
    }
    dataOf(await sdk.deleteGroup({ target_group: { group_id } }));
    process.stderr.write(`deleted the group ${terminalSafe(name)}\n`);
  });

program
  .command('audit')
  .description('show the audit trail, newest first: who changed what, when, with which key (needs audit_view)')
  .option('--user <user_id>', 'only the changes to this user')
  .option('--by <api_key>', 'only the changes this API key made (admin-cli: those of npm run admin)')
  .option('--since <time>', 'only changes at or after this time (ISO, e.g. 2026-11-01)', isoTime)
  .option('--page-size <n>', 'events per page (at most 500; default 100)', positiveInteger)
  .option('--cursor <cursor>', 'the page after the one that printed this cursor')
  .option('--json', 'print JSON')
  .action(async (options: { user?: string; by?: string; since?: string; pageSize?: number; cursor?: string; json?: boolean }) => {
    const page = dataOf(
      await client().getAuditEvents({
        ...(options.user ? { target_user_id: options.user } : {}),
        ...(options.by ? { actor: options.by } : {}),
        ...(options.since ? { since: options.since } : {}),
        ...(options.pageSize ? { page_size: options.pageSize } : {}),
        ...(options.cursor ? { cursor: options.cursor } : {}),
      }),
    );
    if (options.json) return printJson(page);
    printAuditEvents(page.events);
    if (page.next_cursor) process.stdout.write(`older events: --cursor ${page.next_cursor}\n`);
  });

program
  .command('import')
  .description('create users from a CSV file (columns: username, first_name, last_name, phone, organization, password, locked, disabled)')
  .argument('<file.csv>', 'the CSV file, with a header row')
  .option('--json', 'print the summary as JSON')
  .action(async (file: string, options: { json?: boolean }) => {
    const summary = await importUsers(client(), file, { showProgress: Boolean(process.stderr.isTTY) && !options.json });
    if (options.json) printJson(summary);
    else {
      process.stdout.write(`created ${summary.created} of ${summary.rows} users\n`);
      if (summary.failed.length > 0) {
        printTable(
          ['line', 'username', 'error'],
          summary.failed.map((failure) => [String(failure.line), failure.username, failure.error]),
        );
      }
    }
    if (summary.failed.length > 0) process.exitCode = 1;
  });

program.parseAsync().catch((error: unknown) => {
  // Messages may quote what the service or a file said: escaped like every other output.
  process.stderr.write(`error: ${terminalSafe(error instanceof Error ? error.message : String(error))}\n`);
  process.exitCode = 1;
});
