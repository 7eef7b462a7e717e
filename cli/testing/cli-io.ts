/**
 * The CLI's io (cli/io.ts) for a test: what it writes is kept, standard input
 * is the text given, and the terminal's questions are answered from a script.
 */
import { Readable, Writable } from 'node:stream';
import type { CliIo } from '../io.js';

export interface TestIoOptions {
  /** Standard input's whole text. */
  stdin?: string;
  /** As if on a terminal: prompts are answered from `answers`. */
  interactive?: boolean;
  /** The terminal's width; absent, as when stdout is a pipe. */
  columns?: number;
  env?: Record<string, string | undefined>;
  /** The answers to the prompts, in order. */
  answers?: string[];
  /** What stops a command that goes on (events --follow), as SIGINT stops the binary's. */
  stop?: AbortSignal;
}

export interface TestIo {
  io: CliIo;
  stdout(): string;
  stderr(): string;
  /** The questions asked, in order. */
  asked: string[];
}

export function testIo({
  stdin = '',
  interactive = false,
  columns,
  env = {},
  answers = [],
  stop = new AbortController().signal,
}: TestIoOptions = {}): TestIo {
  let stdout = '';
  let stderr = '';
  const asked: string[] = [];
  const answer = async (question: string) => {
    asked.push(question);
    const next = answers.shift();
    if (next === undefined) throw new Error(`the test gave no answer to "${question}"`);
    return next;
  };
  return {
    io: {
      stdout: { write: (text: string) => (stdout += text), columns },
      stderr: new Writable({
        write(chunk, _encoding, done) {
          stderr += String(chunk);
          done();
        },
      }),
      stdin: Readable.from(stdin === '' ? [] : [stdin]),
      interactive,
      env,
      prompt: { text: answer, secret: answer, confirm: async (question) => /^y(es)?$/i.test(await answer(question)) },
      stopRequested: () => stop,
    },
    stdout: () => stdout,
    stderr: () => stderr,
    asked,
  };
}
