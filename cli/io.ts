/**
 * Everything the CLI touches outside itself: its streams, its environment and
 * the questions it asks on a terminal. The binary (main.ts) hands it the
 * process's own; tests hand it theirs, and run the CLI in their process.
 */
import { createInterface } from 'node:readline/promises';
import type { Screen } from '../lib/terminal-output.js';

export interface Prompter {
  /** A line typed at the terminal, echoed (an API key id). */
  text(question: string): Promise<string>;
  /** A line typed without echo (a password, an API key secret). */
  secret(question: string): Promise<string>;
  /** Yes or no; no unless the answer is y or yes. */
  confirm(question: string): Promise<boolean>;
}

export interface CliIo {
  /** Data: tables, JSON. */
  stdout: Screen;
  /** Messages: what was done, what went wrong, prompts, the import's progress bar (when it is a terminal). */
  stderr: NodeJS.WritableStream & { readonly isTTY?: boolean };
  /** Read for --password-stdin and `--ssh-key-file -`. */
  stdin: AsyncIterable<string | Buffer>;
  /** Whether a person is there to answer: stdin is a terminal. */
  interactive: boolean;
  env: Record<string, string | undefined>;
  prompt: Prompter;
  /**
   * Aborted when the person asks a command that goes on (`events --follow`) to stop, so that
   * it ends cleanly; the binary's is SIGINT or SIGTERM, listened for from the first call.
   */
  stopRequested(): AbortSignal;
}

/** Questions on the process's terminal; prompts go to stderr, so that stdout holds only the result (e.g. --json). */
const terminalPrompter: Prompter = {
  async text(question) {
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return (await prompt.question(`${question} `)).trim();
    } finally {
      prompt.close();
    }
  },
  async secret(question) {
    // Loaded when a secret is asked for, not at every start: it is the heaviest of the CLI's
    // packages to load (about 50 ms, a quarter of `--version`; BENCHMARKS.md), and most calls never ask.
    const { default: password } = await import('@inquirer/password');
    return password({ message: question, mask: '*' }, { output: process.stderr });
  },
  async confirm(question) {
    return /^y(es)?$/i.test(await terminalPrompter.text(`${question} [y/N]`));
  },
};

let stopping: AbortController | undefined;

export const PROCESS_IO: CliIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  interactive: process.stdin.isTTY,
  env: process.env,
  prompt: terminalPrompter,
  stopRequested() {
    if (!stopping) {
      const controller = new AbortController();
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => controller.abort());
      stopping = controller;
    }
    return stopping.signal;
  },
};
