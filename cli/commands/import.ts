/** `import`: users from a CSV file. */
import type { Command } from 'commander';
import { printTable } from '../../lib/terminal-output.js';
import { CliError } from '../errors.js';
import type { CommandContext } from '../command-context.js';

export function addImportCommand(program: Command, { io, client, json }: CommandContext): void {
  program
    .command('import')
    .description('create users from a CSV file (columns: username, first_name, last_name, phone, organization, password, locked, disabled)')
    .argument('<file.csv>', 'the CSV file, with a header row')
    .option('--json', 'print JSON: the summary { rows, created, alreadyCreated, failed }')
    .action(async (file: string, options: { json?: boolean }) => {
      // Loaded when a file is imported, not at every start: no other command needs the CSV
      // parser, the digests or the progress bar (the CLI's start, BENCHMARKS.md).
      const { importUsers } = await import('../import-users.js');
      const summary = await importUsers(client(), file, { progress: io.stderr.isTTY && !options.json ? io.stderr : undefined });
      if (options.json) json(summary);
      else {
        const earlier = summary.alreadyCreated > 0 ? ` (${summary.alreadyCreated} more by an earlier run of this import)` : '';
        io.stdout.write(`created ${summary.created} of ${summary.rows} users${earlier}\n`);
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
}
