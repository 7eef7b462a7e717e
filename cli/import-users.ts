/**
 * `workspace-users import <file.csv>`: creates one user per row, with a
 * progress bar on a terminal (lib/user-import.ts is the import itself, which
 * the web console shares).
 */
import { readFile } from 'node:fs/promises';
import { Presets, SingleBar } from 'cli-progress';
import type { WorkspaceClient } from 'workspace-user-api/client';
import { ImportFileError, importRows, rowsOfCsv, type ImportRow } from '../lib/user-import.js';
import { CliError, describe } from './errors.js';

export interface ImportFailure {
  /** The line in the file, counting the header as line 1. */
  line: number;
  username: string;
  error: string;
}

export interface ImportSummary {
  rows: number;
  created: number;
  /** Rows an earlier run of the same import created already (within the keys' 24 hours). */
  alreadyCreated: number;
  failed: ImportFailure[];
}

async function readRows(file: string): Promise<ImportRow[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  try {
    return rowsOfCsv(text);
  } catch (error) {
    if (error instanceof ImportFileError) throw new CliError(`${file}: ${error.message}`);
    throw error;
  }
}

export async function importUsers(
  client: WorkspaceClient,
  file: string,
  { progress }: { progress?: NodeJS.WritableStream | undefined },
): Promise<ImportSummary> {
  const rows = await readRows(file);
  const bar = progress
    ? new SingleBar({ format: 'importing {bar} {value}/{total} rows | {failures} failed', stream: progress }, Presets.shades_classic)
    : undefined;
  bar?.start(rows.length, 0, { failures: 0 });
  let failures = 0;
  const summary = await importRows(client, rows, (outcome, done) => {
    if (outcome.outcome === 'failed') failures++;
    bar?.update(done, { failures });
  });
  bar?.stop();
  return {
    ...summary,
    failed: summary.failed.map(({ line, username, error }) => ({
      line,
      username,
      error: 'code' in error ? describe(error) : error.message,
    })),
  };
}
