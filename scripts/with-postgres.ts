/**
 * Runs a command against a throwaway PostgreSQL cluster:
 *
 *   tsx scripts/with-postgres.ts <command> [args…]
 *
 * Starts one (lib/testing/postgres-cluster.ts), migrates a template database
 * on it once (TEST_POSTGRES_TEMPLATE: the tests' databases are copies of it,
 * server/testing/database.ts), runs the command with TEST_POSTGRES_URL
 * pointing at the cluster, then stops the cluster and removes it. The
 * exit code is the command's. Without PostgreSQL binaries it fails under
 * CI=true and otherwise skips the command, saying so loudly.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import pg from 'pg';
import { skipLoudly } from '../lib/testing/external-tools.js';
import { type PostgresCluster, postgresTool, startPostgresCluster } from '../lib/testing/postgres-cluster.js';
import { migratePostgres } from '../server/store/postgres/connection.js';

/** The database every test database is copied from, migrated to the current schema. */
const TEMPLATE = 'workspace_template';

async function migratedTemplate(clusterUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: clusterUrl });
  await client.connect();
  try {
    await client.query(`create database ${TEMPLATE}`);
  } finally {
    await client.end();
  }
  const url = new URL(clusterUrl);
  url.pathname = `/${TEMPLATE}`;
  // Closes its connections when done: a template is copied only while no one is connected to it.
  await migratePostgres(url.toString());
}

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
  await migratedTemplate(cluster.url);
  process.stderr.write(`with-postgres: PostgreSQL at ${cluster.url}, template database ${TEMPLATE}\n`);
  const env = { ...process.env, TEST_POSTGRES_URL: cluster.url, TEST_POSTGRES_TEMPLATE: TEMPLATE };
  const child = spawn(command, args, { stdio: 'inherit', env, shell: false });
  const [code] = (await once(child, 'exit')) as [number | null];
  exitCode = code ?? 1;
} catch (error) {
  process.stderr.write(`with-postgres: ${(error as Error).message}\n`);
} finally {
  cluster?.remove();
}
process.exit(exitCode);
