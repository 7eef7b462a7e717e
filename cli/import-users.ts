/**
 * `workspace-users import <file.csv>`: creates one user per row. A bad row is
 * reported and skipped; it never stops the rows after it.
 *
 * Each row is created under an Idempotency-Key derived from what it asks
 * (docs/api.md, "Retries"), so that running an interrupted import again, within
 * the keys' 24 hours, makes no user twice: the rows already created are answered
 * as they were the first time, and counted apart. The key holds a digest of the
 * row without its password, which the service stores and a digest must not reveal.
 *
 * The header names the columns, in any order: username (required), first_name,
 * last_name, phone, organization, password, locked, disabled.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { Presets, SingleBar } from 'cli-progress';
import { parse } from 'csv-parse/sync';
import type { WorkspaceClient } from 'workspace-user-api/client';
import { CliError, describe } from './errors.js';

const COLUMNS = ['username', 'first_name', 'last_name', 'phone', 'organization', 'password', 'locked', 'disabled'] as const;
type Row = Partial<Record<(typeof COLUMNS)[number], string>>;

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

/** The Idempotency-Key of a row's create: the same for the same row, whichever run sends it. */
export function importKeyOf(targetUser: Record<string, unknown>): string {
  const { password: _password, ...asked } = targetUser;
  return `import-${createHash('sha256').update(JSON.stringify(asked)).digest('hex')}`;
}

function flag(value: string | undefined, column: string): boolean | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (/^(true|yes|1)$/i.test(value.trim())) return true;
  if (/^(false|no|0)$/i.test(value.trim())) return false;
  throw new Error(`${column} must be true or false, not "${value}"`);
}

async function readRows(file: string): Promise<Row[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  const rows = parse<Row>(text, {
    columns: (header: string[]) => header.map((name) => name.trim().toLowerCase()),
    skip_empty_lines: true,
    trim: false,
    bom: true,
  });
  const header = Object.keys(rows[0] ?? {});
  const unknown = header.filter((name) => !(COLUMNS as readonly string[]).includes(name));
  if (unknown.length > 0) throw new CliError(`${file}: unknown column ${unknown.join(', ')}; the columns are ${COLUMNS.join(', ')}`);
  if (rows.length > 0 && !header.includes('username')) throw new CliError(`${file}: a username column is required`);
  return rows;
}

export async function importUsers(
  client: WorkspaceClient,
  file: string,
  { progress }: { progress?: NodeJS.WritableStream | undefined },
): Promise<ImportSummary> {
  const rows = await readRows(file);
  const summary: ImportSummary = { rows: rows.length, created: 0, alreadyCreated: 0, failed: [] };
  const bar = progress
    ? new SingleBar({ format: 'importing {bar} {value}/{total} rows | {failures} failed', stream: progress }, Presets.shades_classic)
    : undefined;
  bar?.start(rows.length, 0, { failures: 0 });

  for (const [index, row] of rows.entries()) {
    const line = index + 2;
    const username = row.username?.trim() ?? '';
    try {
      const target_user = {
        username,
        ...(row.first_name ? { first_name: row.first_name } : {}),
        ...(row.last_name ? { last_name: row.last_name } : {}),
        ...(row.phone ? { phone: row.phone } : {}),
        ...(row.organization ? { organization: row.organization } : {}),
        ...(row.password ? { password: row.password } : {}),
        ...(flag(row.locked, 'locked') !== undefined ? { locked: flag(row.locked, 'locked') } : {}),
        ...(flag(row.disabled, 'disabled') !== undefined ? { disabled: flag(row.disabled, 'disabled') } : {}),
      };
      const result = await client.createUser({ target_user }, { idempotencyKey: importKeyOf(target_user) });
      if (result.error) summary.failed.push({ line, username, error: describe(result.error) });
      else if (result.response.headers.get('Idempotent-Replayed') === 'true') summary.alreadyCreated++;
      else summary.created++;
    } catch (error) {
      summary.failed.push({ line, username, error: (error as Error).message });
    }
    bar?.update(index + 1, { failures: summary.failed.length });
  }
  bar?.stop();
  return summary;
}
