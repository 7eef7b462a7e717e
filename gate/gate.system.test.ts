/**
 * The contract gate in `npm test`: it passes against the real service, and it
 * goes red against deliberately broken variants of it, which is what makes
 * its passing worth something.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runScript } from '../lib/testing/run-script.js';
import { ServiceError } from '../server/service-errors.js';
import type { Handlers } from '../server/handlers/types.js';
import { StreamedJson } from '../server/http/streamed-json.js';
import { createTestDatabase } from '../server/testing/database.js';
import { type OwnTargetOptions, startOwnTarget } from '../server/testing/gate-target.js';
import { startServiceProcess } from '../lib/testing/service-process.js';
import { CONTRACT_OPERATIONS, SCIM_CONTRACT_OPERATIONS } from './contract-schemas.js';
import { DEFAULT_FUZZ_RUNS } from './fuzz.js';
import { CHECKS, type CheckName, passed, runGate } from './gate.js';
import { type CheckResult, formatReport } from './report.js';
import { ADMIN_COMMAND } from '../lib/testing/commands.js';

async function gate(options: OwnTargetOptions, checks: readonly CheckName[], runs: number): Promise<CheckResult[]> {
  const target = await startOwnTarget(options);
  try {
    return await runGate(target, { fuzz: { seed: 20261121, runs }, checks });
  } finally {
    await target.close();
  }
}

const failuresOf = (results: CheckResult[], name: string) => results.find((result) => result.name === name)?.failures ?? [];

describe('the contract gate', { timeout: 600_000 }, () => {
  it('passes against the real service, with every declared status a transaction and 100 valid and 100 invalid requests per operation', async () => {
    const results = await gate({}, CHECKS, DEFAULT_FUZZ_RUNS);
    assert.ok(passed(results), formatReport('the real service', results));
    assert.deepEqual(
      results.map((result) => result.name),
      ['routes', 'dredd', 'fuzz', 'hostile', 'prism proxy', 'mock parity'],
    );
    assert.match(results[3]!.summary, /^(2[5-9]|[3-9]\d) hostile requests, 0 failures$/);
    assert.match(results[1]!.summary, /^520 transactions \(291 workspace, 229 SCIM\), 520 passed, 0 failed, 0 not checked$/);
    // Each operation's tally of statuses, e.g. "getUser valid: 200×65 401×13 404×22", "SCIM patchUser invalid: 400×100".
    const tallies = results[2]!.details ?? [];
    assert.equal(tallies.length, (CONTRACT_OPERATIONS.length + SCIM_CONTRACT_OPERATIONS.length) * 2);
    assert.equal(CONTRACT_OPERATIONS.length, 37, 'twenty-five JSON operations, six GETs and their six HEADs');
    assert.equal(SCIM_CONTRACT_OPERATIONS.length, 17, 'five discovery operations, six on Users and six on Groups');
    for (const tally of tallies) {
      const sent = [...tally.matchAll(/×(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
      assert.ok(sent >= 100, `only ${sent} requests: ${tally}`);
      if (tally.includes(' invalid:')) assert.match(tally, /^(SCIM )?\w+ invalid: 400×\d+$/, 'every invalid request refused with 400');
    }
  });

  // Deliberately broken variants, with the server's own response validation
  // off as in a production deployment: the gate must see them by itself.
  const variants: Record<string, { breakHandlers: (handlers: Handlers) => Handlers; operation: string }> = {
    'a handler returning a wrong type': {
      operation: 'getUser',
      breakHandlers: (handlers) => ({
        ...handlers,
        async getUser(body, context) {
          const { user } = await handlers.getUser(body, context);
          return { user: { ...user, locked: 'no' as unknown as boolean } };
        },
      }),
    },
    'a handler leaving out a required property': {
      operation: 'getUsers',
      breakHandlers: (handlers) => ({
        ...handlers,
        async getUsers(body, context) {
          // Paged, so that the answer is one object to break (a streamed listing is written as it is read).
          const answer = await handlers.getUsers({ page_size: 100, ...body }, context);
          if (answer instanceof StreamedJson) throw new Error('a paged listing is never streamed');
          const { total: _total, ...page } = answer;
          return page as Awaited<ReturnType<Handlers['getUsers']>>;
        },
      }),
    },
    'a handler answering a status the contract does not declare': {
      operation: 'deleteUser',
      breakHandlers: (handlers) => ({
        ...handlers,
        async deleteUser() {
          throw new ServiceError(410, 'cursor_expired', 'Gone');
        },
      }),
    },
  };

  for (const [name, { breakHandlers, operation }] of Object.entries(variants)) {
    it(`goes red against ${name} (${operation}): Dredd, the fuzz and the Prism proxy each see it`, async () => {
      const results = await gate({ breakHandlers, validateResponses: false }, ['dredd', 'fuzz', 'proxy'], 10);
      assert.equal(passed(results), false);
      for (const check of ['dredd', 'fuzz', 'prism proxy']) {
        const failures = failuresOf(results, check);
        assert.ok(failures.length > 0, `${check} did not notice:\n${formatReport(name, results)}`);
      }
      assert.ok(
        failuresOf(results, 'fuzz').every((failure) => failure.startsWith(`${operation},`)),
        `the fuzz blamed another operation:\n${formatReport(name, results)}`,
      );
      assert.ok(failuresOf(results, 'fuzz').some((failure) => failure.includes('reproduce with FUZZ_SEED=20261121')));
    });
  }

  it('goes red when the server validates its responses and turns a broken one into a 500', async () => {
    const { breakHandlers } = variants['a handler returning a wrong type']!;
    const results = await gate({ breakHandlers, validateResponses: true }, ['dredd'], 10);
    assert.ok(
      failuresOf(results, 'dredd').some((failure) => /get_user.*got '500'/.test(failure)),
      formatReport('validating server', results),
    );
  });
});

describe('npm run contract', { timeout: 600_000 }, () => {
  it('checks a running `npm start` by --base-url, with the admin CLI on its database, and cleans up after itself', async () => {
    const database = await createTestDatabase();
    // A plain `npm start`: the gate's failed checks use made-up key ids and trip no one's throttle.
    const service = await startServiceProcess({ DATABASE_URL: database.url });
    try {
      const key = service.printedKey()!;
      const env = { WORKSPACE_API_KEY: key.api_key, WORKSPACE_API_KEY_SECRET: key.api_key_secret, DATABASE_URL: database.url };
      // Every check, with a short fuzz: the full one runs against the app in process above.
      const run = await runScript('gate/main.ts', ['--base-url', service.url, '--runs', '5'], env);
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.match(run.stdout, /ok {3}dredd: 520 transactions \(291 workspace, 229 SCIM\), 418 passed, 0 failed, 102 not checked/);
      assert.match(run.stdout, /ok {3}fuzz: 54 operations, 540 requests \(270 valid, 270 invalid\), 0 failures/);
      assert.match(run.stdout, /Contract gate passed\./);
      // At once again: its failed checks and its 429s locked nothing out.
      const again = await runScript('gate/main.ts', ['--base-url', service.url, '--only', 'dredd'], env);
      assert.equal(again.code, 0, again.stdout + again.stderr);

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
    const run = await runScript('gate/main.ts', ['--only', 'routes,dredd,hostile'], {});
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stdout, /against its own deployment \(the compiled service on a temporary SQLite database, response validation on\)/);
    // Every declared status but the injected 500s and 503s (workspace 18 + 17, SCIM 23 + 18: a body operation is a transaction per media type), which only the self-check above reaches.
    assert.match(run.stdout, /ok {3}dredd: 520 transactions \(291 workspace, 229 SCIM\), 418 passed, 0 failed, 102 not checked/);
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
  });
});
