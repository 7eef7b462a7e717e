/**
 * `npm run contract` as an operator runs it: against a running `npm start` by
 * --base-url, and against a deployment of its own. A file apart from the gate's
 * self-check (gate.system.test.ts), so that the two run side by side.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ADMIN_COMMAND } from '../lib/testing/commands.js';
import { runScript } from '../lib/testing/run-script.js';
import { startServiceProcess } from '../lib/testing/service-process.js';
import { createTestDatabase } from '../server/testing/database.js';

describe('npm run contract', { timeout: 600_000 }, () => {
  it('checks a running `npm start` by --base-url, with the admin CLI on its database, and cleans up after itself', async () => {
    const database = await createTestDatabase();
    // A plain `npm start`: the gate's failed checks use made-up key ids and trip no one's throttle.
    const service = await startServiceProcess({ DATABASE_URL: database.url });
    try {
      const key = service.printedKey()!;
      const env = { WORKSPACE_API_KEY: key.api_key, WORKSPACE_API_KEY_SECRET: key.api_key_secret, DATABASE_URL: database.url };
      // The checks whose way to a deployment is its own (keys and groups by the admin CLI, what is
      // stored seen through the API), with a short fuzz: the full one runs against the app in process
      // (gate.system.test.ts), and so do the Prism proxy and the mock's parity, whose SDK calls go
      // to an address as they go to any. Every declared status is a transaction but the injected
      // 500s and 503s (workspace 18 + 17, SCIM 23 + 18: a body operation is a transaction per media
      // type) and the 409s of a request held open (workspace 7, SCIM 1), which only the self-check reaches.
      const run = await runScript('gate/main.ts', ['--base-url', service.url, '--only', 'routes,dredd,fuzz,hostile', '--runs', '2'], env);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /ok {3}dredd: 578 transactions \(349 workspace, 229 SCIM\), 463 passed, 0 failed, 115 not checked/);
      assert.match(run.stdout, /ok {3}fuzz: 60 operations, 228 requests \(108 valid, 120 invalid\), 0 failures/);
      assert.match(run.stdout, /Contract gate passed\./);
      // At once again: its failed checks and its 429s locked nothing out (neither the key nor the address).
      const again = await runScript(
        'gate/main.ts',
        ['--base-url', service.url, '--only', 'dredd', '--operations', 'getUser,validateCredentials,SCIM getUser'],
        env,
      );
      assert.equal(again.code, 0, again.stdout + again.stderr);
      assert.match(again.stdout, /ok {3}dredd: 578 transactions .*, 0 failed, \d+ not checked, 5\d\d of other operations left out/);

      const listed = await fetch(`${service.url}/api/public/get_users`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(key),
      });
      assert.equal(((await listed.json()) as { total: number }).total, 0, 'the gate left users behind');
      const groups = await runScript(ADMIN_COMMAND, ['list-groups', '--json'], { DATABASE_URL: database.url });
      assert.deepEqual(
        (JSON.parse(groups.stdout) as { name: string }[]).map((group) => group.name),
        ['All Users'],
      );
    } finally {
      await service.stop('SIGTERM');
      await database.drop();
    }
  });

  it('checks a deployment of its own without --base-url: the compiled service on a temporary database, the admin command on it', async () => {
    // Dredd on a few operations: every transaction ran against a deployment in the test above.
    const run = await runScript(
      'gate/main.ts',
      ['--only', 'routes,dredd,hostile', '--operations', 'createUser,updateUser,SCIM patchUser'],
      {},
    );
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /against its own deployment \(the compiled service on a temporary SQLite database, response validation on\)/);
    // The injected 500s and 503s and the 409s of a request held open are the self-check's alone.
    assert.match(
      run.stdout,
      /ok {3}dredd: 578 transactions \(349 workspace, 229 SCIM\), \d+ passed, 0 failed, \d+ not checked, 5\d\d of other operations left out/,
    );
    assert.match(run.stdout, /ok {3}hostile: \d+ hostile requests, 0 failures/);
  });

  it('refuses --base-url without a key, and an unknown check, with exit code 2', async () => {
    const withoutKey = await runScript('gate/main.ts', ['--base-url', 'http://127.0.0.1:9'], {
      WORKSPACE_API_KEY: '',
      WORKSPACE_API_KEY_SECRET: '',
    });
    assert.equal(withoutKey.code, 2);
    assert.match(withoutKey.stderr, /WORKSPACE_API_KEY/);
    const unknown = await runScript('gate/main.ts', ['--only', 'dredd,vibes'], {});
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown check vibes/);
    const unknownOperation = await runScript('gate/main.ts', ['--operations', 'getUser,getVibes'], {});
    assert.equal(unknownOperation.code, 2);
    assert.match(unknownOperation.stderr, /unknown operation getVibes; the operations are .*, getUser, .*, SCIM patchUser/);
  });
});
