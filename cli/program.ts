/**
 * workspace-users: the client utilities (docs/spec §1) at a terminal, built
 * on the SDK. `runCli` runs one command line against the streams,
 * environment and prompts it is given (io.ts) and resolves with the exit code
 * (errors.ts): the binary hands it the process's own, tests their own.
 *
 * Configured by --url, --api-key and --api-key-secret, or WORKSPACE_URL,
 * WORKSPACE_API_KEY and WORKSPACE_API_KEY_SECRET.
 */ import { Command } from 'commander';
import { VERSION } from '../generated/workspace/version.js';
import { runProgram } from '../lib/command-line.js';
import { DEFAULT_BASE_URL } from 'workspace-user-api/client';
import { commandContext } from './command-context.js';
import { addAttributesCommand } from './commands/attributes.js';
import { addAuditCommand } from './commands/audit.js';
import { addAuthCommand } from './commands/auth.js';
import { addEventsCommand } from './commands/events.js';
import { addGroupCommands } from './commands/groups.js';
import { addImportCommand } from './commands/import.js';
import { addUserCommands } from './commands/users.js';
import { addWebhookCommands } from './commands/webhooks.js';
import type { CliIo } from './io.js';

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

  const context = commandContext(program, io);
  addAuthCommand(program, context);
  addUserCommands(program, context);
  addAttributesCommand(program, context);
  addGroupCommands(program, context);
  addAuditCommand(program, context);
  addEventsCommand(program, context);
  addWebhookCommands(program, context);
  addImportCommand(program, context);
  return program;
}

/** Runs one command line (the arguments after the program's name); resolves with the exit code. */
export function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  return runProgram(buildProgram(io), argv, io.stderr);
}
