/**
 * A database of its own for each test service: a temporary SQLite file, or,
 * when TEST_POSTGRES_URL names a PostgreSQL server (see
 * scripts/with-postgres.ts), a fresh database on it. The same tests thereby
 * run against both stores.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

/** Which store the tests run against in this process. */
export const TEST_STORE: 'sqlite' | 'postgres' = process.env.TEST_POSTGRES_URL ? 'postgres' : 'sqlite';

async function onServer(serverUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A database of the test's own. On PostgreSQL it is a copy of the template
 * scripts/with-postgres.ts migrated once (TEST_POSTGRES_TEMPLATE), which a
 * service opens with nothing to migrate; `empty: true` gives one with no
 * schema, for the tests of migrating itself. On SQLite a new file, which the
 * store migrates on open (a few milliseconds).
 */
export async function createTestDatabase({ empty = false }: { empty?: boolean } = {}): Promise<TestDatabase> {
  const serverUrl = process.env.TEST_POSTGRES_URL;
  if (serverUrl) {
    const name = `test_${randomBytes(8).toString('hex')}`;
    const template = empty ? undefined : process.env.TEST_POSTGRES_TEMPLATE;
    await onServer(serverUrl, template ? `create database ${name} template ${template}` : `create database ${name}`);
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    return { url: url.toString(), drop: () => onServer(serverUrl, `drop database if exists ${name} with (force)`) };
  }
  const directory = await mkdtemp(join(tmpdir(), 'workspace-test-'));
  return { url: `sqlite:${join(directory, 'workspace.db')}`, drop: () => rm(directory, { recursive: true, force: true }) };
}
