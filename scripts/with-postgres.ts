/**
 * Runs a command against a throwaway PostgreSQL cluster:
 *
 *   tsx scripts/with-postgres.ts <command> [args…]
 *
 * Starts one (lib/testing/postgres-cluster.ts), runs the command with
 * TEST_POSTGRES_URL pointing at it, then stops the cluster and removes it. The
 * exit code is the command's. Without PostgreSQL binaries it fails under
 * CI=true and otherwise skips the command, saying so loudly.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { skipLoudly } from '../lib/testing/external-tools.js';
import { type PostgresCluster, postgresTool, startPostgresCluster } from '../lib/testing/postgres-cluster.js';

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write('usage: tsx scripts/with-postgres.ts <command> [args…]\n');
  process.exit(2);
}

const postgres = postgresTool();
if (skipLoudly(postgres, 'the PostgreSQL tests')) process.exit(0);
if (!postgres.present) {
  process.stderr.write(`with-postgres: CI=true needs ${postgres.name}: ${postgres.install} (.ci/run installs it)\n`);
  process.exit(1);
}

let exitCode = 1;
let cluster: PostgresCluster | undefined;
try {
  cluster = await startPostgresCluster();
  process.stderr.write(`with-postgres: PostgreSQL at ${cluster.url}\n`);
  const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, TEST_POSTGRES_URL: cluster.url }, shell: false });
  const [code] = (await once(child, 'exit')) as [number | null];
  exitCode = code ?? 1;
} catch (error) {
  process.stderr.write(`with-postgres: ${(error as Error).message}\n`);
} finally {
  cluster?.remove();
}
process.exit(exitCode);
