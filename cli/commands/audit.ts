/** `audit`: the audit trail, newest first. */
import type { Command } from 'commander';
import { isoTime } from '../../lib/cli-arguments.js';
import { printAuditEvents } from '../../lib/terminal-output.js';
import { dataOf } from '../errors.js';
import { resolveUser } from '../users.js';
import type { CommandContext } from '../command-context.js';
import { positiveInteger, USER_ID } from '../command-options.js';

export function addAuditCommand(program: Command, { io, client, json }: CommandContext): void {
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
}
