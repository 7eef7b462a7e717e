/**
 * What every command of the CLI is given: the streams and prompts (io.ts), the
 * settings from the global options or the environment, and an SDK client on them.
 */
import type { Command } from 'commander';
import { createWorkspaceClient, DEFAULT_BASE_URL, type WorkspaceClient } from 'workspace-user-api/client';
import { printJson } from '../lib/terminal-output.js';
import { UsageError } from './errors.js';
import type { CliIo } from './io.js';
import { NO_KEY } from './command-options.js';

interface GlobalOptions {
  url?: string;
  apiKey?: string;
  apiKeySecret?: string;
}

export interface CommandContext {
  io: CliIo;
  /** The API key and secret from --api-key and --api-key-secret, else the environment. */
  credentials: () => { api_key: string | undefined; api_key_secret: string | undefined };
  clientWith: (api_key: string, api_key_secret: string) => WorkspaceClient;
  /** A client with the key set; without one, a usage error saying how to give it. */
  client: () => WorkspaceClient;
  /** A line for a person on stderr, out of the way of what a script reads on stdout. */
  note: (text: string) => void;
  json: (value: unknown) => void;
  /** The options that take a new password without putting it on the command line. */
  passwordOptions: (command: Command) => Command;
}

export function commandContext(program: Command, io: CliIo): CommandContext {
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

  return { io, credentials, clientWith, client, note, json, passwordOptions };
}
