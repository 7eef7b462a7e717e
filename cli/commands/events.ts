/** `events`: the change feed, a page or followed as `tail -f` follows a file. */
import { type Command, Option } from 'commander';
import { type ChangeEvent, eachEvent, WorkspaceCallError } from 'workspace-user-api/client';
import { printJson, type Screen, terminalSafe } from '../../lib/terminal-output.js';
import { CliError, dataOf, describe } from '../errors.js';
import type { CommandContext } from '../command-context.js';
import { positiveInteger } from '../command-options.js';

/** The types `--type` takes: one type, or every type of a resource. */
export const TYPE_FILTERS = [
  'user.*',
  'group.*',
  'api_key.*',
  'user.created',
  'user.updated',
  'user.deleted',
  'user.logged_out',
  'user.attributes_updated',
  'group.created',
  'group.updated',
  'group.deleted',
  'group.member_added',
  'group.member_removed',
  'api_key.created',
  'api_key.updated',
  'api_key.revoked',
  'webhook.*',
  'webhook.created',
  'webhook.updated',
  'webhook.disabled',
  'webhook.deleted',
] as const;
export type TypeFilter = (typeof TYPE_FILTERS)[number];

/** One line an event: when, what, which resource at which version, what changed, and who. */
function printEvent({ timestamp, type, data }: ChangeEvent, screen: Screen): void {
  const version = data.resource.version === null ? '' : ` v${data.resource.version}`;
  const member = data.member ? ` member ${data.member.user_id}` : '';
  const changed = data.changed.length > 0 ? ` [${data.changed.join(', ')}]` : '';
  const actor = data.actor.id ? `${data.actor.type} ${data.actor.id}` : data.actor.type;
  screen.write(
    terminalSafe(`${timestamp}  ${type.padEnd(24)} ${data.resource.type} ${data.resource.id}${version}${member}${changed}  by ${actor}`) +
      '\n',
  );
}

export function addEventsCommand(program: Command, { io, client, note }: CommandContext): void {
  program
    .command('events')
    .description('show the change feed in the order of commit, or follow it as it grows with --follow (needs events_view)')
    .option('--follow', 'go on printing each new event as it is committed, until interrupted (Ctrl-C)')
    .addOption(new Option('--type <type...>', 'only these types (user.* for every type of users)').choices(TYPE_FILTERS))
    .option('--resource <id>', 'only the events of this user, group or API key')
    .option('--after <cursor>', 'after the event that printed this cursor (default: from the oldest event the feed reaches)')
    .option('--limit <n>', 'events per page without --follow (at most 1000; default 100)', positiveInteger)
    .option('--json', 'print JSON: { events, next_cursor }, or with --follow one event per line (JSON Lines)')
    .action(
      async (options: { follow?: boolean; type?: TypeFilter[]; resource?: string; after?: string; limit?: number; json?: boolean }) => {
        const filters = {
          ...(options.type ? { types: options.type } : {}),
          ...(options.resource ? { resource_id: options.resource } : {}),
          ...(options.after ? { after: options.after } : {}),
        };
        if (!options.follow) {
          const page = dataOf(await client().getEvents({ ...filters, ...(options.limit ? { limit: options.limit } : {}) }));
          if (options.json) return void printJson(page, io.stdout);
          for (const event of page.events) printEvent(event, io.stdout);
          note(`${page.events.length} events; to go on: --after ${page.next_cursor}`);
          return;
        }
        const stop = io.stopRequested();
        let cursor = options.after;
        try {
          for await (const event of eachEvent(filters, { client: client(), signal: stop, onCursor: (next) => (cursor = next) })) {
            if (options.json) io.stdout.write(`${JSON.stringify(event)}\n`);
            else printEvent(event, io.stdout);
          }
        } catch (error) {
          if (error instanceof WorkspaceCallError) throw new CliError(describe(error.error));
          throw error;
        }
        if (cursor) note(`stopped; to go on from here: --after ${cursor}`);
      },
    );
}
