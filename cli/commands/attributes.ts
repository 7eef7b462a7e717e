/** `attributes`: a user's preferences, shown or changed. */
import { readFileSync } from 'node:fs';
import { type Command, Option } from 'commander';
import { printTable } from '../../lib/terminal-output.js';
import { CliError, dataOf } from '../errors.js';
import { readStdin } from '../prompts.js';
import { resolveUser } from '../users.js';
import type { CommandContext } from '../command-context.js';

export function addAttributesCommand(program: Command, { io, client, json }: CommandContext): void {
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
}

function readKeyFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
