/**
 * `admin backup` and `admin restore` on PostgreSQL, through its own tools:
 * pg_dump writes a consistent copy of a live database (one snapshot), and
 * pg_restore puts one back in a single transaction, so that a restore cut
 * short leaves the database as it was. The password travels to them in their
 * environment (PGPASSWORD), never on their command line, where any local user
 * could read it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

export type PostgresProgram = 'pg_dump' | 'pg_restore';

/** The program on PATH, or the newest server's own (Debian puts them in /usr/lib/postgresql/<version>/bin). */
export function postgresProgram(name: PostgresProgram): string | undefined {
  if (spawnSync(name, ['--version'], { stdio: 'ignore' }).status === 0) return name;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  return versions.map((version) => join(root, version, 'bin', name)).find((path) => existsSync(path));
}

/** The URL without its password, and the password for PGPASSWORD. */
function credentialsApart(url: string): { url: string; password: string | undefined } {
  const parsed = new URL(url);
  const password = parsed.password ? decodeURIComponent(parsed.password) : undefined;
  parsed.password = '';
  return { url: parsed.toString(), password };
}

/** Runs the program to its end; rejects with what it said on stderr (the URL's password is never in it). */
export function runPostgresProgram(program: string, args: string[], databaseUrl: string): Promise<void> {
  const { url, password } = credentialsApart(databaseUrl);
  const child = spawn(program, [...args, `--dbname=${url}`], {
    env: { ...process.env, ...(password === undefined ? {} : { PGPASSWORD: password }) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let said = '';
  child.stderr.on('data', (chunk: Buffer) => (said += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(said.trim() || `${program} exited with ${code}`))));
  });
}

/** Whether `file` is an archive pg_restore can read (`pg_restore --list`), or why not. */
export function notAnArchiveBecause(program: string, file: string): string | undefined {
  const listed = spawnSync(program, ['--list', file], { encoding: 'utf8' });
  if (listed.status === 0) return /TABLE DATA public users /.test(listed.stdout) ? undefined : 'it is not a workspace-user-api database';
  return listed.stderr.trim() || 'pg_restore cannot read it';
}

/** What restoring would throw away: the rows of the directory's tables that hold any, or undefined when none do. */
export async function rowsHeld(databaseUrl: string, tables: readonly string[]): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    const held: string[] = [];
    for (const table of tables) {
      const exists = await client.query<{ found: string | null }>('select to_regclass($1) as found', [`public.${table}`]);
      if (!exists.rows[0]?.found) continue;
      const { rows } = await client.query<{ count: string }>(`select count(*) as count from ${client.escapeIdentifier(table)}`);
      if (Number(rows[0]?.count) > 0) held.push(`${rows[0]?.count} ${table}`);
    }
    return held.length > 0 ? `it holds ${held.join(', ')}` : undefined;
  } finally {
    await client.end();
  }
}
