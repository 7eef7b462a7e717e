/**
 * Reading what must not be typed as an argument: a password from standard
 * input or a hidden prompt (never argv, which lands in shell history and `ps`).
 */
import { CliError, UsageError } from './errors.js';
import type { CliIo } from './io.js';

export async function readStdin(io: CliIo): Promise<string> {
  let text = '';
  for await (const chunk of io.stdin) text += typeof chunk === 'string' ? chunk : chunk.toString('utf8');
  return text;
}

async function passwordFromStdin(io: CliIo): Promise<string> {
  // Only the line break a shell or `echo` adds is dropped; other whitespace is part of the password.
  const value = (await readStdin(io)).replace(/\r?\n$/, '');
  if (value === '') throw new CliError('--password-stdin: standard input held no password');
  return value;
}

async function passwordFromPrompt(io: CliIo): Promise<string> {
  if (!io.interactive) throw new UsageError('--prompt-password needs a terminal; use --password-stdin instead');
  const first = await io.prompt.secret('New password:');
  const again = await io.prompt.secret('Repeat it:');
  if (first !== again) throw new CliError('the two passwords differ');
  return first;
}

/** The password the options ask for, if any. */
export async function passwordFrom(io: CliIo, options: { passwordStdin?: boolean; promptPassword?: boolean }): Promise<string | undefined> {
  if (options.passwordStdin && options.promptPassword) throw new UsageError('use --password-stdin or --prompt-password, not both');
  if (options.passwordStdin) return passwordFromStdin(io);
  if (options.promptPassword) return passwordFromPrompt(io);
  return undefined;
}
