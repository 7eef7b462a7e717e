/**
 * workspace-users: the client utilities (docs/spec §1) at a terminal, built
 * on the SDK. `runCli` runs one command line against the streams,
 * environment and prompts it is given (io.ts) and resolves with the exit code
 * (errors.ts): the binary hands it the process's own, tests their own.
 *
 * Configured by --url, --api-key and --api-key-secret, or WORKSPACE_URL,
 * WORKSPACE_API_KEY and WORKSPACE_API_KEY_SECRET.
 */
import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import {
  type components,
  createWorkspaceClient,
  DEFAULT_BASE_URL,
  eachUser,
  type Group,
  type User,
  WorkspaceCallError,
  type WorkspaceClient,
} from 'workspace-user-api/client';
import { VERSION } from '../generated/workspace/version.js';
import { isoTime } from '../lib/cli-arguments.js';
import { printAuditEvents, printJson, printTable, terminalSafe } from '../lib/terminal-output.js';
import { runProgram } from '../lib/command-line.js';
import { CliError, dataOf, describe, UsageError } from './errors.js';
import { importUsers } from './import-users.js';
import type { CliIo } from './io.js';
import { printUser, printUsers } from './output.js';
import { passwordFrom, readStdin } from './prompts.js';
import { resolveUser } from './users.js';

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

const NO_KEY =
  'no API key: give --api-key and --api-key-secret, or set WORKSPACE_API_KEY and WORKSPACE_API_KEY_SECRET ' +
  '(on a terminal, `workspace-users auth` asks for them)';

function wholeNumberFrom(least: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < least) throw new InvalidArgumentError(`expected a whole number of at least ${least}`);
    return number;
  };
}
const positiveInteger = wholeNumberFrom(1);

/** The user named by a --user option: a user_id as it is (a deleted user's events stay), a username looked up. */
const USER_ID = /^[0-9a-f]{32}$/;

/** The profile's text fields that create and update take, as the options gave them. */
function profileFields(options: Record<string, string | boolean | undefined>) {
  return {
    ...(options.firstName !== undefined ? { first_name: String(options.firstName) } : {}),
    ...(options.lastName !== undefined ? { last_name: String(options.lastName) } : {}),
    ...(options.phone !== undefined ? { phone: String(options.phone) } : {}),
    ...(options.organization !== undefined ? { organization: String(options.organization) } : {}),
  };
}

interface GlobalOptions {
  url?: string;
  apiKey?: string;
  apiKeySecret?: string;
}

/** Every command, writing to `io`. Built anew for each run: commander keeps what it parsed on the program. */
function buildProgram(io: CliIo): Command {
  const program = new Command('workspace-users')
    .description('Manage the users of a workspace service from the terminal.')
    .version(VERSION, '--version', 'print the version')
    .option('--url <url>', `the service address (default: WORKSPACE_URL, then ${DEFAULT_BASE_URL})`)
    .option('--api-key <key>', 'the API key (default: WORKSPACE_API_KEY)')
    .option('--api-key-secret <secret>', 'the API key secret (default: WORKSPACE_API_KEY_SECRET, which is safer than an argument)')
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) });

  const setting = (value: string | undefined, variable: string) => value || io.env[variable] || undefined;
  const baseUrl = () => setting(program.opts<GlobalOptions>().url, 'WORKSPACE_URL') ?? DEFAULT_BASE_URL;
  const credentials = () => {
    const options = program.opts<GlobalOptions>();
    return {
      api_key: setting(options.apiKey, 'WORKSPACE_API_KEY'),
      api_key_secret: setting(options.apiKeySecret, 'WORKSPACE_API_KEY_SECRET'),
    };
  };
  const clientWith = (api_key: string, api_key_secret: string) => createWorkspaceClient({ baseUrl: baseUrl(), api_key, api_key_secret });
  const client = (): WorkspaceClient => {
    const { api_key, api_key_secret } = credentials();
    if (!api_key || !api_key_secret) throw new UsageError(NO_KEY);
    return clientWith(api_key, api_key_secret);
  };
  const note = (text: string) => io.stderr.write(`${text}\n`);
  const json = (value: unknown) => printJson(value, io.stdout);

  const passwordOptions = (command: Command) =>
    command
      .option('--password-stdin', 'read the new password from standard input')
      .option('--prompt-password', 'ask for the new password without echoing it (on a terminal)');

  program
    .command('auth')
    .description('check the API key and show what it may do; on a terminal, asks for the key when none is set')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      let { api_key, api_key_secret } = credentials();
      const asked = !api_key || !api_key_secret;
      if (asked) {
        if (!io.interactive) throw new UsageError(NO_KEY);
        api_key ||= await io.prompt.text('API key:');
        api_key_secret ||= await io.prompt.secret('API key secret:');
      }
      const key = dataOf(await clientWith(api_key ?? '', api_key_secret ?? '').validateCredentials());
      if (options.json) json(key);
      else
        io.stdout.write(
          `Valid key ${key.api_key} ("${terminalSafe(key.name)}")\npermissions: ${key.permissions.join(', ') || 'none'}\nexpires: ${key.expires ?? 'never'}\n`,
        );
      if (asked)
        note(`To use it in the commands that follow: export WORKSPACE_API_KEY=${key.api_key} WORKSPACE_API_KEY_SECRET=<the secret>`);
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
    .option('--json', 'print JSON: { users, total } and, when paging, the page and next_cursor')
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
          if (options.json) return void json({ users, total: users.length });
          printUsers(users, io.stdout);
          io.stdout.write(`${users.length} users\n`);
          return;
        }
        if (options.page === undefined && options.cursor === undefined && options.pageSize === undefined) {
          const everyone = dataOf(await client().getUsers(order));
          if (options.json) return void json(everyone);
          printUsers(everyone.users, io.stdout);
          io.stdout.write(`${everyone.total} users\n`);
          return;
        }
        const start = options.cursor ? { cursor: options.cursor } : { page: options.page ?? 0 };
        const page = dataOf(await client().getUsers({ ...start, ...order, page_size: options.pageSize ?? 100 }));
        if (options.json) return void json(page);
        printUsers(page.users, io.stdout);
        const where =
          page.page !== undefined && page.page_size
            ? `page ${page.page} of 0–${Math.max(1, Math.ceil(page.total / page.page_size)) - 1}`
            : `${page.users.length} users`;
        io.stdout.write(`${where}, ${page.total} users in all\n`);
        if (page.next_cursor) io.stdout.write(`next page: --cursor ${page.next_cursor}\n`);
      },
    );

  program
    .command('get')
    .description('show one user')
    .argument('<user>', 'a username or user_id')
    .option('--json', 'print JSON: the user')
    .action(async (named: string, options: { json?: boolean }) => {
      const { user, version } = await resolveUser(client(), named);
      if (options.json) return void json(user);
      printUser(user, io.stdout, version);
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
      .option('--json', 'print JSON: the user'),
  ).action(async (options: Record<string, string | boolean | undefined>) => {
    const password = await passwordFrom(io, options);
    const { user } = dataOf(
      await client().createUser({
        target_user: {
          username: String(options.username),
          ...profileFields(options),
          ...(password !== undefined ? { password } : {}),
        },
      }),
    );
    if (options.json) return void json(user);
    printUser(user, io.stdout);
  });

  passwordOptions(
    program
      .command('update')
      .description("change some of a user's fields; the others keep their values")
      .argument('<user>', 'a username or user_id')
      .option('--username <username>', 'a new username')
      .option('--first-name <name>')
      .option('--last-name <name>')
      .option('--phone <phone>')
      .option('--organization <organization>')
      .addOption(new Option('--lock', 'lock the account').conflicts('unlock'))
      .option('--unlock', 'unlock the account')
      .addOption(new Option('--disable', 'disable the account').conflicts('enable'))
      .option('--enable', 'enable the account')
      .option('--if-match <version>', 'change the user only if it is still at this version (as `get` shows it, e.g. W/"7")')
      .option('--json', 'print JSON: the user'),
  ).action(async (named: string, options: Record<string, string | boolean | undefined>) => {
    const changes = {
      ...(options.username !== undefined ? { username: String(options.username) } : {}),
      ...profileFields(options),
      ...(options.lock ? { locked: true } : options.unlock ? { locked: false } : {}),
      ...(options.disable ? { disabled: true } : options.enable ? { disabled: false } : {}),
    };
    const wantsPassword = Boolean(options.passwordStdin || options.promptPassword);
    if (Object.keys(changes).length === 0 && !wantsPassword)
      throw new UsageError('nothing to change: give at least one field option (see --help)');
    const sdk = client();
    const { user_id } = (await resolveUser(sdk, named)).user;
    const password = await passwordFrom(io, options);
    const updated = await sdk.updateUser(
      { target_user: { user_id, ...changes, ...(password !== undefined ? { password } : {}) } },
      { ifMatch: options.ifMatch as string | undefined },
    );
    const { user } = dataOf(updated);
    if (options.json) return void json(user);
    printUser(user, io.stdout, updated.etag);
  });

  program
    .command('delete')
    .description('delete a user (asks first, on a terminal)')
    .argument('<user>', 'a username or user_id')
    .option('--yes', 'do not ask')
    .option('--if-match <version>', 'delete the user only if it is still at this version (as `get` shows it, e.g. W/"7")')
    .action(async (named: string, options: { yes?: boolean; ifMatch?: string }) => {
      const sdk = client();
      if (!options.yes && !io.interactive) throw new UsageError('not deleting without --yes when not on a terminal');
      const { user } = await resolveUser(sdk, named);
      if (!options.yes && !(await io.prompt.confirm(`Delete ${terminalSafe(user.username)} (${user.user_id})?`)))
        throw new CliError('not deleted');
      dataOf(await sdk.deleteUser({ target_user: { user_id: user.user_id } }, { ifMatch: options.ifMatch }));
      note(`deleted ${terminalSafe(user.username)} (${user.user_id})`);
    });

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

  program
    .command('logout')
    .description('log a user out everywhere: sessions started before now stop being valid (needs users_auth_session)')
    .argument('<user>', 'a username or user_id')
    .action(async (named: string) => {
      const sdk = client();
      const { user_id, username } = (await resolveUser(sdk, named)).user;
      dataOf(await sdk.logoutUser({ target_user: { user_id } }));
      note(`logged out ${terminalSafe(username)}: sessions started before now are no longer valid`);
    });

  program
    .command('attributes')
    .description("show a user's attributes (Kasm's preferences), or change the ones given")
    .argument('<user>', 'a username or user_id')
    .addOption(new Option('--theme <theme>').choices(['Light', 'Dark', 'Auto']))
    .option('--language <tag>', 'a BCP 47 language tag, e.g. en-GB ("" to unset)')
    .option('--timezone <zone>', 'an IANA time zone, e.g. Europe/London ("" to unset)')
    .option('--ssh-key-file <file>', 'an OpenSSH public key file (the .pub), or - for standard input')
    .option('--json', 'print JSON: the attributes')
    .action(
      async (
        named: string,
        options: { theme?: 'Light' | 'Dark' | 'Auto'; language?: string; timezone?: string; sshKeyFile?: string; json?: boolean },
      ) => {
        const sdk = client();
        const sshKey =
          options.sshKeyFile === undefined ? undefined : options.sshKeyFile === '-' ? await readStdin(io) : readKeyFile(options.sshKeyFile);
        const changes = {
          ...(options.theme !== undefined ? { theme: options.theme } : {}),
          ...(options.language !== undefined ? { preferred_language: options.language } : {}),
          ...(options.timezone !== undefined ? { preferred_timezone: options.timezone } : {}),
          ...(sshKey !== undefined ? { ssh_public_key: sshKey.trim() } : {}),
        };
        const { user_id } = (await resolveUser(sdk, named)).user;
        const { user_attributes } = dataOf(
          Object.keys(changes).length === 0
            ? await sdk.getAttributes({ target_user: { user_id } })
            : await sdk.updateUserAttributes({ target_user_attributes: { user_id, ...changes } }),
        );
        if (options.json) return void json(user_attributes);
        const { user_id: _user, user_attributes_id: _id, ...shown } = user_attributes;
        printTable(
          ['attribute', 'value'],
          Object.entries(shown).map(([name, value]) => [name, value === null ? '(none)' : String(value)]),
          io.stdout,
        );
      },
    );

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

  program
    .command('audit')
    .description('show the audit trail, newest first: who changed what, when, with which key (needs audit_view)')
    .option('--user <user>', 'only the changes to this user (a user_id, also of a deleted user, or a username)')
    .option('--by <api_key>', 'only the changes this API key made (admin-cli: those of npm run admin)')
    .option('--since <time>', 'only changes at or after this time (ISO, e.g. 2026-11-01)', isoTime)
    .option('--page-size <n>', 'events per page (at most 500; default 100)', positiveInteger)
    .option('--cursor <cursor>', 'the page after the one that printed this cursor')
    .option('--json', 'print JSON: { events, next_cursor }')
    .action(async (options: { user?: string; by?: string; since?: string; pageSize?: number; cursor?: string; json?: boolean }) => {
      const sdk = client();
      const target_user_id =
        options.user === undefined
          ? undefined
          : USER_ID.test(options.user)
            ? options.user
            : (await resolveUser(sdk, options.user)).user.user_id;
      const page = dataOf(
        await sdk.getAuditEvents({
          ...(target_user_id ? { target_user_id } : {}),
          ...(options.by ? { actor: options.by } : {}),
          ...(options.since ? { since: options.since } : {}),
          ...(options.pageSize ? { page_size: options.pageSize } : {}),
          ...(options.cursor ? { cursor: options.cursor } : {}),
        }),
      );
      if (options.json) return void json(page);
      printAuditEvents(page.events, io.stdout);
      if (page.next_cursor) io.stdout.write(`older events: --cursor ${page.next_cursor}\n`);
    });

  program
    .command('import')
    .description('create users from a CSV file (columns: username, first_name, last_name, phone, organization, password, locked, disabled)')
    .argument('<file.csv>', 'the CSV file, with a header row')
    .option('--json', 'print JSON: the summary { rows, created, failed }')
    .action(async (file: string, options: { json?: boolean }) => {
      const summary = await importUsers(client(), file, { progress: io.stderr.isTTY && !options.json ? io.stderr : undefined });
      if (options.json) json(summary);
      else {
        io.stdout.write(`created ${summary.created} of ${summary.rows} users\n`);
        if (summary.failed.length > 0) {
          printTable(
            ['line', 'username', 'error'],
            summary.failed.map((failure) => [String(failure.line), failure.username, failure.error]),
            io.stdout,
          );
        }
      }
      if (summary.failed.length > 0) throw new CliError(`${summary.failed.length} of ${summary.rows} rows failed`);
    });

  return program;
}

function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** Runs one command line (the arguments after the program's name); resolves with the exit code. */
export function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  return runProgram(buildProgram(io), argv, io.stderr);
}
