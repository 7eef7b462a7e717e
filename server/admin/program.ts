/**
 * The operator's CLI: `npm run admin -- <command>`. Works directly on the
 * database named by DATABASE_URL (the same default as the service), so it
 * runs beside a live service or with none. `runAdmin` runs one command line
 * against the streams and environment it is given (main.ts hands it the
 * process's own) and resolves with the exit code.
 *
 * Output meant for scripts (a new key, a new group) is JSON on stdout;
 * listings are tables unless --json is given; failures go to stderr with exit
 * code 1, usage errors with 2 (lib/command-line.ts).
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { CommandFailure as AdminError, runProgram, UsageFailure } from '../../lib/command-line.js';
import { PERMISSIONS, type Permission } from '../../lib/contract/operations.js';
import { scimToken } from '../../lib/contract/credentials.js';
import { printAuditEvents, printJson, printTable, type Screen, terminalSafe } from '../../lib/terminal-output.js';
import { DEFAULT_DATABASE_URL } from '../config.js';
import { openStore } from '../store/open-store.js';
import { type ApiKeyRecord, ADMIN_CLI, canonicalId, createDirectory, type Directory, DirectoryError } from '../directory/index.js';
import { isoTime } from '../../lib/cli-arguments.js';
import { backupDatabase, migrateDatabase, restoreDatabase, schemaStatus, type SchemaStatus } from '../store/maintenance.js';

const PERMISSIONS_ALLOWED = `"all", "none" or a comma-separated list of: ${PERMISSIONS.join(', ')}`;

function parsePermissions(value: string): Permission[] {
  if (value.trim() === 'all') return [...PERMISSIONS];
  // A key that can only check itself (validate_credentials): for monitoring.
  if (value.trim() === 'none') return [];
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !PERMISSIONS.includes(name as Permission));
  if (names.length === 0 || unknown.length > 0) {
    throw new InvalidArgumentError(`unknown permission ${unknown.join(', ') || '(none given)'}; use ${PERMISSIONS_ALLOWED}`);
  }
  return [...new Set(names as Permission[])];
}

/** Never defaulted: a key gets only the permissions it is given (update-key: keeps those it has). */
const permissionsOption = () => new Option('--permissions <list>', PERMISSIONS_ALLOWED).argParser(parsePermissions);

/** 'never' stays a word: commander turns an option parser's null into ''. */
function parseExpiryOrNever(value: string): Date | 'never' {
  return value.trim().toLowerCase() === 'never' ? 'never' : parseExpiry(value);
}

function parseExpiry(value: string): Date {
  const when = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(when.getTime())) {
    throw new InvalidArgumentError('expected an ISO date such as 2027-01-31 or 2027-01-31T18:00:00Z');
  }
  return when;
}

function keyStatus(key: ApiKeyRecord, now = new Date()): string {
  if (key.revoked) return 'revoked';
  if (key.expires && new Date(key.expires) <= now) return 'expired';
  return 'active';
}

function parseLimit(value: string): number {
  const limit = Number(value);
  if (!Number.isSafeInteger(limit) || limit < 1 || limit > 10_000)
    throw new InvalidArgumentError('expected a whole number from 1 to 10000');
  return limit;
}

/** Where the admin command reads and writes: the process's own (main.ts), or a test's. */
export interface AdminIo {
  stdout: Screen;
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
}

function printStatus(status: SchemaStatus, stdout: Screen): void {
  const schema = status.applied.at(-1) ?? 'none (an empty database)';
  stdout.write(`database:   ${terminalSafe(status.database)}\n`);
  stdout.write(`schema:     ${schema}\n`);
  stdout.write(`pending:    ${status.pending.join(', ') || 'none'}\n`);
  if (status.unknown.length > 0) stdout.write(`unknown:    ${status.unknown.join(', ')} (made by a newer version)\n`);
  const counts = Object.entries(status.counts).map(([table, count]) => `${table} ${count}`);
  stdout.write(`rows:       ${counts.join(', ') || 'none'}\n`);
  if (status.groupNames.length > 0) {
    stdout.write(`group names: ${status.groupNames.length} to rename (the group-name rule, docs/operations.md):\n`);
    for (const { group_id, name, reason } of status.groupNames) {
      stdout.write(`  ${group_id} "${terminalSafe(name)}": ${reason}\n`);
    }
  }
  if (status.sharedExternalIds.length > 0) {
    stdout.write(`externalIds: ${status.sharedExternalIds.length} shared with an older user or group (change or remove them):\n`);
    for (const { resource, id, external_id } of status.sharedExternalIds) {
      stdout.write(`  ${resource} ${id} "${terminalSafe(external_id)}"\n`);
    }
  }
}

/** Every command, on `io`. Built anew for each run: commander keeps what it parsed on the program. */
function buildProgram({ stdout, stderr, env }: AdminIo): Command {
  const databaseUrl = () => env.DATABASE_URL || DEFAULT_DATABASE_URL;
  const json = (value: unknown) => printJson(value, stdout);

  /**
   * Opens the directory for one command and always closes its store. A refusal of the
   * directory is the command's failure, in the directory's words.
   */
  async function withDirectory<T>(run: (directory: Directory) => Promise<T>): Promise<T> {
    // A person is waiting, and the service holds the write lock only for moments: wait longer for it.
    const store = await openStore(databaseUrl(), { timeouts: { lockMs: 5_000 } });
    try {
      return await run(createDirectory(store));
    } catch (error) {
      if (error instanceof DirectoryError) throw new AdminError(error.message);
      throw error;
    } finally {
      await store.close();
    }
  }

  const program = new Command('admin')
    .description(
      'Manage the API keys, groups and database of the workspace user API.\nUses DATABASE_URL (default sqlite:data/workspace.db).',
    )
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: (text) => stdout.write(text), writeErr: (text) => stderr.write(text) });

  program
    .command('create-key')
    .description(
      'create an API key and print it as JSON: its secret (shown only this once), and the bearer token SCIM clients send (docs/scim.md)',
    )
    .requiredOption('--name <name>', 'what the key is for, e.g. "hr-sync"')
    .addOption(permissionsOption())
    .option('--expires <date>', 'when the key stops working (ISO date, e.g. 2027-01-31)', parseExpiry)
    .action(async (options: { name: string; permissions?: Permission[]; expires?: Date }) => {
      // Least privilege: a key does only what it is named for, and nothing by default (as Kasm's keys).
      if (!options.permissions) throw new UsageFailure(`create-key needs --permissions: ${PERMISSIONS_ALLOWED}`);
      const { permissions, name } = options;
      const issued = await withDirectory((directory) =>
        directory.keys.create({ name, permissions, expires: options.expires ?? null }, ADMIN_CLI, 'operator'),
      );
      json({
        api_key: issued.record.api_key,
        api_key_secret: issued.secret,
        // What an identity provider is given to provision the directory over SCIM (Authorization: Bearer …).
        scim_token: scimToken({ api_key: issued.record.api_key, api_key_secret: issued.secret }),
        name: issued.record.name,
        permissions: issued.record.permissions,
        expires: issued.record.expires,
      });
    });

  program
    .command('update-key')
    .description("change an active key's permissions or expiry and print it as JSON (never its secret); it applies at once")
    .argument('<api_key>', 'the public id of the key')
    .addOption(permissionsOption())
    .option('--expires <date>', 'when the key stops working (ISO date), or "never"', parseExpiryOrNever)
    .action(async (apiKey: string, options: { permissions?: Permission[]; expires?: Date | 'never' }) => {
      if (!options.permissions && options.expires === undefined)
        throw new UsageFailure('update-key needs --permissions, --expires or both');
      const updated = await withDirectory((directory) =>
        directory.keys.update(
          apiKey,
          {
            ...(options.permissions ? { permissions: options.permissions } : {}),
            ...(options.expires !== undefined ? { expires: options.expires === 'never' ? null : options.expires.toISOString() } : {}),
          },
          ADMIN_CLI,
        ),
      );
      const { secret_digest: _digest, ...shown } = updated;
      json({ ...shown, status: keyStatus(updated) });
    });

  program
    .command('list-keys')
    .description('list API keys (never their secrets)')
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { json?: boolean }) => {
      const keys = await withDirectory((directory) => directory.keys.list({ includeRevoked: true }));
      const described = keys.map(({ secret_digest: _digest, ...key }) => ({ ...key, status: keyStatus({ ...key, secret_digest: '' }) }));
      if (options.json) return void json(described);
      printTable(
        ['api_key', 'name', 'status', 'permissions', 'created', 'expires', 'last_used'],
        described.map((key) => [
          key.api_key,
          key.name,
          key.status,
          key.permissions.join(', '),
          key.created,
          key.expires ?? 'never',
          key.last_used ?? 'never',
        ]),
        stdout,
        [0],
      );
    });

  program
    .command('revoke-key')
    .description('revoke an API key; it stops working at once')
    .argument('<api_key>', 'the public id of the key')
    .action(async (apiKey: string) => {
      const revoked = await withDirectory((directory) => directory.keys.revoke(apiKey, ADMIN_CLI, 'operator'));
      json({ api_key: apiKey, revoked: revoked.revoked });
    });

  program
    .command('create-group')
    .description('create a group and print it as JSON')
    .requiredOption('--name <name>', 'the group name, unique')
    .action(async (options: { name: string }) => {
      json(await withDirectory((directory) => directory.groups.create({ name: options.name }, ADMIN_CLI)));
    });

  program
    .command('delete-group')
    .description('delete a group and its memberships (never the system group "All Users")')
    .argument('<group_id>', 'the id of the group')
    .action(async (groupId: string) => {
      await withDirectory((directory) => directory.groups.delete(groupId, ADMIN_CLI));
      json({ group_id: canonicalId(groupId), deleted: true });
    });

  program
    .command('list-groups')
    .description('list groups')
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { json?: boolean }) => {
      const groups = await withDirectory((directory) => directory.groups.list());
      if (options.json) return void json(groups);
      printTable(
        ['group_id', 'name', 'system'],
        groups.map((group) => [group.group_id, group.name, group.is_system ? 'yes' : 'no']),
        stdout,
        [0],
      );
    });

  program
    .command('username-report')
    .description('list stored usernames that the username profile refuses (kept as they were when the profile came in)')
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { json?: boolean }) => {
      const reports = await withDirectory((directory) => directory.users.usernameReports());
      if (options.json) return void json(reports);
      if (reports.length === 0) return void stdout.write('every stored username meets the username profile\n');
      printTable(
        ['user_id', 'username', 'why', 'reported'],
        reports.map((report) => [report.user_id, report.username, report.reason, report.reported]),
        stdout,
        [0],
      );
      stdout.write('Rename each with update_user (or workspace-users update USER_ID --username NEW_NAME).\n');
    });

  program
    .command('audit')
    .description('show the audit trail, newest first: who changed what, when, with which key and in which request')
    .option('--user <user_id>', 'only the changes to this user')
    .option('--since <time>', 'only changes at or after this time (ISO, e.g. 2026-11-01)', isoTime)
    .option('--limit <n>', 'at most this many events', parseLimit, 100)
    .option('--json', 'print JSON instead of a table')
    .action(async (options: { user?: string; since?: string; limit: number; json?: boolean }) => {
      const { events } = await withDirectory((directory) =>
        directory.auditEvents({
          pageSize: options.limit,
          ...(options.user ? { targetUserId: options.user } : {}),
          ...(options.since ? { since: options.since } : {}),
        }),
      );
      if (options.json) return void json(events);
      printAuditEvents(events, stdout);
    });

  program
    .command('status')
    .description('show the schema version, the pending migrations and the rows per table, changing nothing')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const status = await schemaStatus(databaseUrl());
      if (options.json) return void json(status);
      printStatus(status, stdout);
    });

  program
    .command('migrate')
    .description('apply the pending migrations and exit (for deploy pipelines; the service also migrates when it starts)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { applied, status } = await migrateDatabase(databaseUrl());
      if (options.json) return void json({ ...status, newly_applied: applied });
      stdout.write(applied.length > 0 ? `applied: ${applied.join(', ')}\n` : 'nothing to apply: the schema is current\n');
      printStatus(status, stdout);
    });

  program
    .command('backup')
    .description(
      'write a consistent copy of the database to FILE (0600), while the service keeps serving (PostgreSQL: pg_dump --format=custom)',
    )
    .argument('<file>', 'a new file for the backup')
    .action(async (file: string) => {
      const { status } = await backupDatabase(databaseUrl(), file);
      stdout.write(`backed up to ${terminalSafe(file)}\n`);
      printStatus(status, stdout);
    });

  program
    .command('restore')
    .description(
      'replace the database with a backup made by `backup`, then migrate it; refused while a service (or anything) has the database open',
    )
    .argument('<file>', 'the backup')
    .option('--force', 'replace a database that holds rows (the service must still be stopped: nothing overrides that)')
    .action(async (file: string, options: { force?: boolean }) => {
      const { status } = await restoreDatabase(file, databaseUrl(), { force: options.force === true });
      stdout.write(`restored ${terminalSafe(file)}\n`);
      printStatus(status, stdout);
    });

  return program;
}

/** Runs one command line (the arguments after `admin`); resolves with the exit code. */
export function runAdmin(argv: readonly string[], io: AdminIo): Promise<number> {
  return runProgram(buildProgram(io), argv, io.stderr);
}
