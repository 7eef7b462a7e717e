/**
 * The contract gate goes red against deliberately broken variants of the service,
 * with the server's own response validation off as in a production deployment:
 * the gate must see them by itself. A file apart from the self-check that passes
 * (gate.system.test.ts), so that the two run side by side.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import type { Handlers } from '../server/handlers/types.js';
import { StreamedJson } from '../server/http/streamed-json.js';
import { ServiceError } from '../server/service-errors.js';
import { passed } from './gate.js';
import { type CheckResult, formatReport } from './report.js';
import { failuresOf, gate } from './testing/self-check.js';

describe('the contract gate against broken variants', { timeout: 600_000 }, () => {
  const variants: Record<string, { breakHandlers: (handlers: Handlers) => Handlers; operation: string; path: string }> = {
    'a handler returning a wrong type': {
      operation: 'getUser',
      path: '/api/public/get_user',
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
      path: '/api/public/get_users',
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
      path: '/api/public/delete_user',
      breakHandlers: (handlers) => ({
        ...handlers,
        async deleteUser() {
          throw new ServiceError(410, 'cursor_expired', 'Gone');
        },
      }),
    },
  };

  // The three breaks are in three operations, and each check names the operation of each failure:
  // one service broken three ways shows each break seen, and blamed on its own operation, as three
  // services broken one way each would (at a third of the cost: Dredd and Prism start once).
  describe('three handlers broken at once, each in its own operation', () => {
    const broken = Object.values(variants);
    const breakHandlers = (handlers: Handlers) => broken.reduce((composed, variant) => variant.breakHandlers(composed), handlers);
    let results: CheckResult[] = [];
    before(async () => {
      // Dredd on the broken operations' transactions (the others are the self-check's); the fuzz
      // on every operation, so that it shows whom it blames.
      const operations = new Set(broken.map((variant) => variant.operation));
      const narrowed = await gate({ breakHandlers, validateResponses: false }, ['dredd', 'proxy'], 10, operations);
      results = [...narrowed, ...(await gate({ breakHandlers, validateResponses: false }, ['fuzz'], 10))];
    });

    it('Dredd narrowed to them, and the whole fuzz, each with the failures of no other operation', () => {
      assert.equal(passed(results), false);
      assert.match(results[0]!.summary, /^578 transactions .*, 0 not checked, 5\d\d of other operations left out$/);
      const paths = broken.map((variant) => variant.path);
      assert.deepEqual(
        failuresOf(results, 'dredd').filter((failure) => !paths.some((path) => failure.includes(` ${path}:`))),
        [],
        'Dredd blamed another operation',
      );
      const operations = broken.map((variant) => `${variant.operation},`);
      assert.deepEqual(
        failuresOf(results, 'fuzz').filter((failure) => !operations.some((operation) => failure.startsWith(operation))),
        [],
        `the fuzz blamed another operation:\n${formatReport('three broken handlers', results)}`,
      );
      assert.ok(failuresOf(results, 'fuzz').some((failure) => failure.includes('reproduce with FUZZ_SEED=20261121')));
    });

    for (const [name, { operation, path }] of Object.entries(variants)) {
      it(`goes red against ${name} (${operation}): Dredd, the fuzz and the Prism proxy each see it`, () => {
        const seen = {
          dredd: failuresOf(results, 'dredd').filter((failure) => failure.includes(` ${path}:`)),
          fuzz: failuresOf(results, 'fuzz').filter((failure) => failure.startsWith(`${operation},`)),
          'prism proxy': failuresOf(results, 'prism proxy').filter((failure) => new RegExp(`^#\\d+ ${operation} \\(`).test(failure)),
        };
        for (const [check, failures] of Object.entries(seen)) {
          assert.ok(failures.length > 0, `${check} did not notice:\n${formatReport(name, results)}`);
        }
      });
    }
  });

  it('goes red when the server validates its responses and turns a broken one into a 500', async () => {
    const { breakHandlers } = variants['a handler returning a wrong type']!;
    const results = await gate({ breakHandlers, validateResponses: true }, ['dredd'], 10, new Set(['getUser']));
    assert.ok(
      failuresOf(results, 'dredd').some((failure) => /get_user.*got '500'/.test(failure)),
      formatReport('validating server', results),
    );
  });
});
