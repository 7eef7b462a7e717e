/**
 * The workspace-users binary as a process, once: the compiled entry point
 * hands the command line, its environment and its streams to runCli and ends
 * with its exit code. Every command is tested in process
 * (program.integration.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CLI_COMMAND } from '../lib/testing/commands.js';
import { runScript } from '../lib/testing/run-script.js';
import { startTestService, type TestService } from '../server/testing/service.js';

describe('the workspace-users binary', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('reads its environment and standard input, prints to stdout and stderr, and exits 0, 1 or 2', async () => {
    const env = {
      WORKSPACE_URL: service.baseUrl,
      WORKSPACE_API_KEY: service.admin.api_key,
      WORKSPACE_API_KEY_SECRET: service.admin.api_key_secret,
    };
    const created = await runScript(
      CLI_COMMAND,
      ['create', '--username', 'bin@example.com', '--password-stdin', '--json'],
      env,
      'Correct-Horse-42\n',
    );
    assert.equal(created.code, 0, created.stderr);
    assert.equal(JSON.parse(created.stdout).username, 'bin@example.com');
    const again = await runScript(CLI_COMMAND, ['create', '--username', 'bin@example.com'], env);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /^error: .*\(username_taken\)\n$/);
    const usage = await runScript(CLI_COMMAND, ['list', '--bogus'], env);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /unknown option '--bogus'/);
  });
});
