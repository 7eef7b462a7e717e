/**
 * `npm run admin` as a process, once: the compiled entry point hands the
 * command line, DATABASE_URL and its streams to runAdmin and ends with its
 * exit code. Every command is tested in process (program.integration.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_COMMAND } from '../../lib/testing/commands.js';
import { runScript } from '../../lib/testing/run-script.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';

describe('the admin command as a process', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase();
  });
  after(() => database.drop());

  it('reads DATABASE_URL, prints to stdout and stderr, and exits 0, 1 or 2', async () => {
    const env = { DATABASE_URL: database.url };
    const created = await runScript(ADMIN_COMMAND, ['create-group', '--name', 'Spawned'], env);
    assert.equal(created.code, 0, created.stderr);
    assert.equal(JSON.parse(created.stdout).name, 'Spawned');
    const again = await runScript(ADMIN_COMMAND, ['create-group', '--name', 'Spawned'], env);
    assert.equal(again.code, 1);
    assert.match(
      again.stderr,
      /^error: Group name is already taken, by this name or one that reads the same \(case, width and spaces aside\)\n$/,
    );
    const usage = await runScript(ADMIN_COMMAND, ['create-key'], env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /required option '--name <name>' not specified/);
  });
});
