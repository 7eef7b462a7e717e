/**
 * Reading what must not be typed as an argument: a password from standard
 * input or a hidden prompt (never argv, which lands in shell history and `ps`),
 * and a yes/no confirmation on a terminal.
 */
import { createInterface } from 'node:readline/promises';
import password from '@inquirer/password';
import { CliError } from './output.js';

export async function passwordFromStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += chunk;
  // Only the line break a shell or `echo` adds is dropped; other whitespace is part of the password.
  const value = text.replace(/\r?\n$/, '');
  if (value === '') throw new CliError('--password-stdin: standard input held no password');
  return value;
}

export async function passwordFromPrompt(): Promise<string> {
  if (!process.stdin.isTTY) throw new CliError('--prompt-password needs a terminal; use --password-stdin instead');
  // Prompts go to stderr, so that stdout holds only the result (e.g. --json).
  const first = await password({ message: 'New password:', mask: '*' }, { output: process.stderr });
  const again = await password({ message: 'Repeat it:', mask: '*' }, { output: process.stderr });
  if (first !== again) throw new CliError('the two passwords differ');
  return first;
}

/** The password the options ask for, if any. */
export async function passwordFrom(options: { passwordStdin?: boolean; promptPassword?: boolean }): Promise<string | undefined> {
  if (options.passwordStdin && options.promptPassword) throw new CliError('use --password-stdin or --prompt-password, not both');
  if (options.passwordStdin) return passwordFromStdin();
  if (options.promptPassword) return passwordFromPrompt();
  return undefined;
}

export async function confirm(question: string): Promise<boolean> {
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await prompt.question(`${question} [y/N] `)).trim());
  } finally {
    prompt.close();
  }
}
