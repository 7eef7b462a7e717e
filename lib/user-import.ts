/**
 * Importing users from CSV, one user per row, for every client that offers it:
 * the CLI (`workspace-users import`) and the web console's import screen. A bad
 * row is reported and skipped; it never stops the rows after it.
 *
 * Each row is created under an Idempotency-Key derived from what it asks
 * (docs/api.md, "Retries"), so that running an interrupted import again, within
 * the keys' 24 hours, makes no user twice: the rows already created are answered
 * as they were the first time, and counted apart. The key holds a digest of the
 * row without its password, which the service stores and a digest must not reveal.
 *
 * The header names the columns, in any order: username (required), first_name,
 * last_name, phone, organization, password, locked, disabled. csv-parse reads
 * the text (its browser build in the console, console/build.mjs).
 */
import { parse } from 'csv-parse/sync';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { ApiError, ClientFailure, WorkspaceClient } from 'workspace-user-api/client';

export const IMPORT_COLUMNS = ['username', 'first_name', 'last_name', 'phone', 'organization', 'password', 'locked', 'disabled'] as const;
export type ImportRow = Partial<Record<(typeof IMPORT_COLUMNS)[number], string>>;

/** What a file is not, as a person can fix it: the whole import stops before any row. */
export class ImportFileError extends Error {}

/** What became of one row. */
export type RowOutcome =
  | { line: number; username: string; outcome: 'created' | 'already_created' }
  | { line: number; username: string; outcome: 'failed'; error: ApiError | ClientFailure | Error };

export interface ImportSummary {
  rows: number;
  created: number;
  /** Rows an earlier run of the same import created already (within the keys' 24 hours). */
  alreadyCreated: number;
  failed: Extract<RowOutcome, { outcome: 'failed' }>[];
}

/** The rows of a CSV text with its header; refuses unknown columns and a file without usernames. */
export function rowsOfCsv(text: string): ImportRow[] {
  let rows: ImportRow[];
  try {
    rows = parse<ImportRow>(text, {
      columns: (header: string[]) => header.map((name) => name.trim().toLowerCase()),
      skip_empty_lines: true,
      trim: false,
      bom: true,
    });
  } catch (error) {
    throw new ImportFileError(`not a CSV file this import reads: ${(error as Error).message}`);
  }
  const header = Object.keys(rows[0] ?? {});
  const unknown = header.filter((name) => !(IMPORT_COLUMNS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new ImportFileError(`unknown column ${unknown.join(', ')}; the columns are ${IMPORT_COLUMNS.join(', ')}`);
  if (rows.length > 0 && !header.includes('username')) throw new ImportFileError('a username column is required');
  return rows;
}

/**
 * The Idempotency-Key of a row's create: the same for the same row, whichever run sends it.
 * The digest is @noble/hashes' SHA-256, not Web Crypto's: a browser gives `crypto.subtle` only
 * to pages over TLS or on the machine itself, and the console imports over plain HTTP too.
 */
export function importKeyOf(targetUser: Record<string, unknown>): string {
  const { password: _password, ...asked } = targetUser;
  return `import-${bytesToHex(sha256(utf8ToBytes(JSON.stringify(asked))))}`;
}

function flag(value: string | undefined, column: string): boolean | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^(true|yes|1)$/i.test(value.trim())) return true;
  if (/^(false|no|0)$/i.test(value.trim())) return false;
  throw new Error(`${column} must be true or false, not "${value}"`);
}

/** The user a row asks for, as create_user takes it. */
function targetUserOf(row: ImportRow) {
  const locked = flag(row.locked, 'locked');
  const disabled = flag(row.disabled, 'disabled');
  return {
    username: row.username?.trim() ?? '',
    ...(row.first_name ? { first_name: row.first_name } : {}),
    ...(row.last_name ? { last_name: row.last_name } : {}),
    ...(row.phone ? { phone: row.phone } : {}),
    ...(row.organization ? { organization: row.organization } : {}),
    ...(row.password ? { password: row.password } : {}),
    ...(locked !== undefined ? { locked } : {}),
    ...(disabled !== undefined ? { disabled } : {}),
  };
}

/** Creates a user per row, in order, telling `onRow` of each as it is done. */
export async function importRows(
  client: Pick<WorkspaceClient, 'createUser'>,
  rows: readonly ImportRow[],
  onRow: (outcome: RowOutcome, done: number) => void = () => {},
): Promise<ImportSummary> {
  const summary: ImportSummary = { rows: rows.length, created: 0, alreadyCreated: 0, failed: [] };
  for (const [index, row] of rows.entries()) {
    const line = index + 2;
    const username = row.username?.trim() ?? '';
    let outcome: RowOutcome;
    try {
      const target_user = targetUserOf(row);
      const result = await client.createUser({ target_user }, { idempotencyKey: importKeyOf(target_user) });
      if (result.error) outcome = { line, username, outcome: 'failed', error: result.error };
      else if (result.response.headers.get('Idempotent-Replayed') === 'true') outcome = { line, username, outcome: 'already_created' };
      else outcome = { line, username, outcome: 'created' };
    } catch (error) {
      outcome = { line, username, outcome: 'failed', error: error as Error };
    }
    if (outcome.outcome === 'failed') summary.failed.push(outcome);
    else if (outcome.outcome === 'created') summary.created++;
    else summary.alreadyCreated++;
    onRow(outcome, index + 1);
  }
  return summary;
}
