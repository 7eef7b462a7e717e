/**
 * How long each test file took the last time it ran, so that the next run starts the
 * slowest first (scripts/run-test-files.ts). With two files at a time, a tier ends when
 * its last file does: started in the order of their names, the system tier's slowest
 * files (the console's, the gate's, the production install's, a minute each) could start
 * last and run alone at the end. Started slowest first, the two lanes end together.
 *
 * The times are kept on the machine, beside Node's compile cache
 * (`~/.cache/workspace-user-api/test-durations.json`), by tier and store; a clone
 * of its own, as CI's is, finds them there. A file with no time yet (new, or a
 * machine's first run) starts before those with one: it may be the slowest.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** Where the times are kept: TEST_DURATIONS_FILE, or the machine's cache of the project. */
export const testDurationsFile = (env: NodeJS.ProcessEnv = process.env): string =>
  env.TEST_DURATIONS_FILE || join(homedir(), '.cache', 'workspace-user-api', 'test-durations.json');

/** Milliseconds each file took, by the run they belong to (`system on sqlite`) and the file's path. */
export type TestDurations = Record<string, Record<string, number>>;

/** The times kept at `file`; none when there are none or they cannot be read (an order is only a speed-up). */
export function readTestDurations(file: string): TestDurations {
  try {
    const read: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return read !== null && typeof read === 'object' && !Array.isArray(read) ? (read as TestDurations) : {};
  } catch {
    return {};
  }
}

/** `files` in the order to start them: those with no time first, as given; then the slowest first. */
export function slowestFirst(files: readonly string[], known: Readonly<Record<string, number>> = {}): string[] {
  const timeOf = (file: string) => (typeof known[file] === 'number' ? known[file] : Number.POSITIVE_INFINITY);
  // Array.prototype.sort is stable: files of the same time keep the order given.
  return [...files].sort((a, b) => timeOf(b) - timeOf(a));
}

/** Keeps the times this run measured at `file`, each in place of the file's earlier one; written whole, by a rename, so that a reader never sees half. */
export function recordTestDurations(file: string, run: string, measured: Readonly<Record<string, number>>): void {
  const durations = readTestDurations(file);
  durations[run] = { ...durations[run], ...measured };
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, `${JSON.stringify(durations, null, 2)}\n`);
  renameSync(partial, file);
}
