/** The user lifecycle: `list`, `get`, `create`, `update`, `delete`, `logout`. */
import { type Command, Option } from 'commander';
import { eachUser, type User, WorkspaceCallError } from 'workspace-user-api/client';
import { terminalSafe } from '../../lib/terminal-output.js';
import { CliError, dataOf, describe, UsageError } from '../errors.js';
import { printUser, printUsers } from '../output.js';
import { passwordFrom } from '../prompts.js';
import { resolveUser } from '../users.js';
import type { CommandContext } from '../command-context.js';
import { positiveInteger, profileFields, SORTABLE_FIELDS, type SortableField, wholeNumberFrom } from '../command-options.js';

export function addUserCommands(program: Command, { io, client, note, json, passwordOptions }: CommandContext): void {
  program
    .command('list')
    .description("list every user (one call, as Kasm's get_users), or one page with --page, --cursor, --page-size or --search")
    .addOption(
      new Option('--page <n>', 'the page, counting from 0 as Kasm does (default 0)')
        .argParser(wholeNumberFrom(0))
        .conflicts(['cursor', 'all']),
    )
    .addOption(new Option('--cursor <cursor>', 'the page after the one that printed this cursor').conflicts('all'))
    .option('--all', "every user, fetched a page at a time by cursor (for a directory past the service's GET_USERS_MAX)")
    .option('--page-size <n>', 'users per page (at most 500; default 100 when paging)', positiveInteger)
    .option('--search <text>', 'only the users whose username or name contains this text, in any case')
    .addOption(new Option('--sort-by <field>', 'the order (default username)').choices(SORTABLE_FIELDS))
    .addOption(new Option('--desc', 'in descending order'))
    .option('--json', 'print JSON: { users, total } and, when paging, the page and next_cursor')
    .action(
      async (options: {
        page?: number;
        cursor?: string;
        all?: boolean;
        pageSize?: number;
        search?: string;
        sortBy?: SortableField;
        desc?: boolean;
        json?: boolean;
      }) => {
        const order = {
          ...(options.sortBy ? { sort_by: options.sortBy } : {}),
          ...(options.desc ? { sort_direction: 'desc' as const } : {}),
          ...(options.search === undefined ? {} : { search: options.search }),
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
        if (options.page === undefined && options.cursor === undefined && options.pageSize === undefined && options.search === undefined) {
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
}
