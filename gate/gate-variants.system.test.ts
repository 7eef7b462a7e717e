/**
 * The contract gate goes red against deliberately broken variants of the service,
 * with the server's own response validation off as in a production deployment:
 * the gate must see them by itself. A file apart from the self-check that passes
 * (gate.system.test.ts), so that the two run side by side.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Handlers } from '../server/handlers/types.js';
import { StreamedJson } from '../server/http/streamed-json.js';
import { ServiceError } from '../server/service-errors.js';
import { passed } from './gate.js';
import { formatReport } from './report.js';
import { failuresOf, gate } from './testing/self-check.js';

describe('the contract gate against broken variants', { timeout: 600_000 }, () => {
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
      // Dredd on the broken operation's transactions (the others are the self-check's); the fuzz
      // on every operation, so that it shows whom it blames.
      const narrowed = await gate({ breakHandlers, validateResponses: false }, ['dredd', 'proxy'], 10, new Set([operation]));
      const results = [...narrowed, ...(await gate({ breakHandlers, validateResponses: false }, ['fuzz'], 10))];
      assert.equal(passed(results), false);
      assert.match(results[0]!.summary, /^578 transactions .*, 0 not checked, 5\d\d of other operations left out$/);
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
    const results = await gate({ breakHandlers, validateResponses: true }, ['dredd'], 10, new Set(['getUser']));
    assert.ok(
      failuresOf(results, 'dredd').some((failure) => /get_user.*got '500'/.test(failure)),
      formatReport('validating server', results),
    );
  });
});
