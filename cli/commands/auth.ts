/** `auth`: check the API key, and ask for one on a terminal. */
import type { Command } from 'commander';
import { terminalSafe } from '../../lib/terminal-output.js';
import { dataOf, UsageError } from '../errors.js';
import type { CommandContext } from '../command-context.js';
import { NO_KEY } from '../command-options.js';

export function addAuthCommand(program: Command, { io, credentials, clientWith, note, json }: CommandContext): void {
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
}
