/**
 * `npm start` refusing its settings: the same on either store (it stops before opening one),
 * so it runs once, where main.integration.test.ts runs on both.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SERVICE_COMMAND } from '../lib/testing/commands.js';
import { runScript } from '../lib/testing/run-script.js';

describe('npm start', () => {
  let directory: string;
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'workspace-settings-'));
  });
  after(() => rm(directory, { recursive: true, force: true }));

  it('refuses bad settings with one clear line and no stack trace', async () => {
    for (const [env, message] of [
      [{ PORT: 'eighty' }, /PORT="eighty" is not allowed: expected a whole number/],
      [{ TRUST_PROXY: 'proxy.example' }, /TRUST_PROXY="proxy.example" is not allowed/],
      [{ DATABASE_URL: 'mysql://db/x' }, /DATABASE_URL must be sqlite:<path>/],
      [{ VALIDATE_RESPONSES: 'maybe' }, /VALIDATE_RESPONSES="maybe" is not allowed: expected true or false/],
    ] as const) {
      const base = { PORT: '0', DATABASE_URL: `sqlite:${join(directory, 'bad.db')}` };
      const run = await runScript(SERVICE_COMMAND, [], { ...base, ...env });
      assert.equal(run.code, 1);
      assert.match(run.stderr, message);
      assert.doesNotMatch(run.stderr, /\n\s+at /);
    }
  });
});
