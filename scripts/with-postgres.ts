/**
 * Runs a command against a throwaway PostgreSQL cluster:
 *
 *   tsx scripts/with-postgres.ts <command> [args…]
 *
 * initdb into a temporary directory (as the `postgres` user when run as
 * root), start it on a free loopback port, run the command with
 * TEST_POSTGRES_URL pointing at it, then stop the cluster and remove it. The
 * exit code is the command's. Without PostgreSQL binaries it fails under
 * CI=true and otherwise skips the command, saying so loudly.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { skipLoudly } from '../lib/testing/external-tools.js';
import { freePort } from '../lib/testing/ports.js';

function postgresBinaries(): string | undefined {
  const fromEnv = process.env.POSTGRES_BIN;
  if (fromEnv) return fromEnv;
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  return versions.map((version) => join(root, version, 'bin')).find((bin) => existsSync(join(bin, 'initdb')));
}

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: tsx scripts/with-postgres.ts <command> [args…]\n');
  process.exit(2);
}

const bin = postgresBinaries();
const postgres = {
  name: 'PostgreSQL binaries (in /usr/lib/postgresql/*/bin or POSTGRES_BIN)',
  present: bin !== undefined,
  install: 'apt-get install postgresql, or set POSTGRES_BIN',
};
if (skipLoudly(postgres, 'the PostgreSQL tests')) process.exit(0);
if (!bin) {
  process.stderr.write(`with-postgres: CI=true needs ${postgres.name}: ${postgres.install} (.ci/run installs it)\n`);
  process.exit(1);
}

// initdb refuses to run as root, so the cluster belongs to the postgres user when we are root.
const asRoot = process.getuid?.() === 0;
const run = (tool: string, toolArgs: string[]) =>
  execFileSync(asRoot ? 'runuser' : join(bin, tool), asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...toolArgs] : toolArgs, {
    stdio: 'pipe',
  });

const directory = mkdtempSync(join(tmpdir(), 'workspace-postgres-'));
const data = join(directory, 'data');
if (asRoot)
  chownSync(
    directory,
    Number(execFileSync('id', ['-u', 'postgres']).toString()),
    Number(execFileSync('id', ['-g', 'postgres']).toString()),
  );
const port = await freePort();

let exitCode = 1;
try {
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  // fsync off: a throwaway cluster needs no durability, and tests run faster without it.
  run('pg_ctl', [
    '-D',
    data,
    '-l',
    join(directory, 'server.log'),
    '-w',
    '-o',
    `-c listen_addresses=127.0.0.1 -p ${port} -k ${directory} -c fsync=off -c max_connections=200`,
    'start',
  ]);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  process.stderr.write(`with-postgres: PostgreSQL at ${url}\n`);
  const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, TEST_POSTGRES_URL: url }, shell: false });
  const [code] = (await once(child, 'exit')) as [number | null];
  exitCode = code ?? 1;
} catch (error) {
  process.stderr.write(`with-postgres: ${(error as Error).message}\n`);
} finally {
  try {
    run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
  } catch {
    // Not started, or gone already.
  }
  rmSync(directory, { recursive: true, force: true });
}
process.exit(exitCode);
