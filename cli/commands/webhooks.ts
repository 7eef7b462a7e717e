/** `webhooks`: receivers of the change events, made, listed, changed and checked (needs webhooks_manage). */
import { type Command, Option } from 'commander';
import { isoTime } from '../../lib/cli-arguments.js';
import { printJson, printTable, terminalSafe } from '../../lib/terminal-output.js';
import { dataOf } from '../errors.js';
import type { CommandContext } from '../command-context.js';
import { positiveInteger } from '../command-options.js';
import { TYPE_FILTERS, type TypeFilter } from './events.js';

export function addWebhookCommands(program: Command, { io, client, note }: CommandContext): void {
  const webhooks = program
    .command('webhooks')
    .description('webhooks: change events POSTed to a receiver, signed as Standard Webhooks says (needs webhooks_manage)');
  const json = (value: unknown) => printJson(value, io.stdout);

  webhooks
    .command('add')
    .description('make a webhook and print its secret, shown only this once')
    .argument('<url>', 'where deliveries are POSTed: a public http or https address')
    .addOption(
      new Option('--type <type...>', 'only these event types (user.* for every type of users); default every event').choices(TYPE_FILTERS),
    )
    .option('--description <text>', 'what it is for')
    .option('--exclude-own-changes', "leave out the changes this key makes (a sync job's own writes)")
    .option('--json', 'print JSON: { webhook, secret }')
    .action(async (url: string, options: { type?: TypeFilter[]; description?: string; excludeOwnChanges?: boolean; json?: boolean }) => {
      const made = dataOf(
        await client().createWebhook({
          target_webhook: {
            url,
            ...(options.type ? { event_types: options.type } : {}),
            ...(options.description ? { description: options.description } : {}),
            ...(options.excludeOwnChanges ? { exclude_own_changes: true } : {}),
          },
        }),
      );
      if (options.json) return void json(made);
      io.stdout.write(`${made.webhook.webhook_id}\nsecret: ${made.secret}\n`);
      note('Keep the secret where the receiver reads it: it is not shown again (rotate it with `webhooks rotate`).');
    });

  webhooks
    .command('list')
    .description('list the webhooks (never their secrets)')
    .option('--json', 'print JSON')
    .action(async (options: { json?: boolean }) => {
      const { webhooks: all } = dataOf(await client().getWebhooks());
      if (options.json) return void json(all);
      printTable(
        ['webhook_id', 'url', 'events', 'state'],
        all.map((webhook) => [
          webhook.webhook_id,
          terminalSafe(webhook.url),
          webhook.event_types?.join(', ') ?? 'every event',
          webhook.enabled ? 'enabled' : `disabled${webhook.disabled_reason ? `: ${terminalSafe(webhook.disabled_reason)}` : ''}`,
        ]),
        io.stdout,
        [0],
      );
    });

  for (const [name, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    webhooks
      .command(name)
      .description(enabled ? 'enable a webhook again (its failures forgotten)' : 'stop delivering to a webhook')
      .argument('<webhook_id>')
      .action(async (webhookId: string) => {
        dataOf(await client().updateWebhook({ target_webhook: { webhook_id: webhookId, enabled } }));
        note(`${name}d ${webhookId}`);
      });
  }

  webhooks
    .command('rm')
    .description('delete a webhook; nothing more is sent to it')
    .argument('<webhook_id>')
    .action(async (webhookId: string) => {
      dataOf(await client().deleteWebhook({ target_webhook: { webhook_id: webhookId } }));
      note(`deleted ${webhookId}`);
    });

  webhooks
    .command('rotate')
    .description('give a webhook a new secret, printed this once; the old one signs beside it for 24 hours')
    .argument('<webhook_id>')
    .action(async (webhookId: string) => {
      const { secret } = dataOf(await client().rotateWebhookSecret({ target_webhook: { webhook_id: webhookId } }));
      io.stdout.write(`secret: ${secret}\n`);
    });

  webhooks
    .command('ping')
    .description('send a webhook.ping to a webhook; see how it went with `webhooks deliveries`')
    .argument('<webhook_id>')
    .action(async (webhookId: string) => {
      dataOf(await client().pingWebhook({ target_webhook: { webhook_id: webhookId } }));
      note(`queued a ping to ${webhookId}`);
    });

  webhooks
    .command('deliveries')
    .description('show the latest attempts to deliver to a webhook, newest first')
    .argument('<webhook_id>')
    .option('--limit <n>', 'at most this many (default 50)', positiveInteger)
    .option('--json', 'print JSON')
    .action(async (webhookId: string, options: { limit?: number; json?: boolean }) => {
      const { deliveries } = dataOf(
        await client().getWebhookDeliveries({
          target_webhook: { webhook_id: webhookId },
          ...(options.limit ? { limit: options.limit } : {}),
        }),
      );
      if (options.json) return void json(deliveries);
      printTable(
        ['attempted_at', 'event', 'attempt', 'answer', 'ms', 'next'],
        deliveries.map((attempt) => [
          attempt.attempted_at,
          `${attempt.event_type} ${attempt.event_id}`,
          String(attempt.attempt),
          attempt.status === null ? terminalSafe(attempt.error ?? '') : String(attempt.status),
          String(attempt.duration_ms),
          attempt.next_attempt_at ?? '',
        ]),
        io.stdout,
        [1],
      );
    });

  webhooks
    .command('redeliver')
    .description('deliver events to a webhook again: one (--event) or every one since a time (--since)')
    .argument('<webhook_id>')
    .option('--event <event_id>', 'the event to deliver again')
    .option('--since <time>', 'every event it takes committed at or after this time (ISO, e.g. 2026-11-26T09:00Z)', isoTime)
    .action(async (webhookId: string, options: { event?: string; since?: string }) => {
      const { queued } = dataOf(
        await client().redeliverWebhook({
          target_webhook: { webhook_id: webhookId },
          ...(options.event ? { event_id: options.event } : {}),
          ...(options.since ? { since: options.since } : {}),
        }),
      );
      note(`queued ${queued} deliveries to ${webhookId}`);
    });
}
