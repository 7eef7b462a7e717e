/**
 * What both command-line tools (`workspace-users` and `npm run admin`) share
 * about ending: one command line runs to an exit code, 0 when it did what it
 * was asked, 1 when an operation failed, 2 when it was asked wrongly (an
 * unknown command or option, a missing or malformed argument; commander's
 * own errors, and UsageFailure).
 */
import { type Command, CommanderError } from 'commander';
import { terminalSafe } from './terminal-output.js';

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** An operation that failed: its message on stderr, exit 1. */
export class CommandFailure extends Error {
  readonly exitCode: number = EXIT.failed;
}

/** A command given wrongly: its message on stderr, exit 2. */
export class UsageFailure extends CommandFailure {
  override readonly exitCode: number = EXIT.usage;
}

/**
 * Parses and runs one command line (the arguments after the program's name)
 * on a program built with `.exitOverride()`, and resolves with its exit code.
 */
export async function runProgram(program: Command, argv: readonly string[], stderr: { write(text: string): unknown }): Promise<number> {
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return EXIT.ok;
  } catch (error) {
    // Commander has printed its own message (and the help) already; --help and --version end here too, with 0.
    if (error instanceof CommanderError)
      return ['commander.helpDisplayed', 'commander.version'].includes(error.code) ? EXIT.ok : EXIT.usage;
    // Messages may quote what the service, the database or a file said: escaped like every other output.
    stderr.write(`error: ${terminalSafe(error instanceof Error ? error.message : String(error))}\n`);
    return error instanceof CommandFailure ? error.exitCode : EXIT.failed;
  }
}

/**
 * A reader that stops early (`admin backup … | head -1`) closes the pipe; the
 * next write then fails with EPIPE, which Node raises as an unhandled error
 * with a stack trace. A command whose reader has gone ends quietly instead,
 * as Unix tools do: `leave` is the entry file's exit (process.exit stays there).
 */
export function leaveQuietlyWhenReaderGoes(stream: NodeJS.EventEmitter, leave: () => void): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    leave();
  });
}
