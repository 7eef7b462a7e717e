/**
 * The contract's validation as installed: express-openapi-validator, patched
 * (patches/express-openapi-validator+5.6.2.patch) so that a request without a
 * query string, to an operation whose only parameters are headers and path
 * segments of text, skips the validator's query mutator, which had nothing to do
 * for it and cost update_user a few microseconds (BENCHMARKS.md). The validator
 * still checks such a request's headers and body, and still reads a query string.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express from 'express';
import { contractValidation } from './contract-validation.js';

/** What the operation's handler saw of the request, once validated. */
interface Seen {
  ownQuery: boolean;
  query: unknown;
}

let server: Server;
let base: string;

before(async () => {
  const app = express();
  app.use(express.json());
  app.use(contractValidation({ responses: false }));
  app.post('/api/public/update_user', (req, res) => {
    const seen: Seen = { ownQuery: Object.hasOwn(req, 'query'), query: req.query };
    res.json(seen);
  });
  // The validator's refusals, as their status: the translation into the contract's answers is validation-errors.ts's.
  app.use(((error, _req, res, _next) => res.status(error.status ?? 500).json({ status: error.status })) as express.ErrorRequestHandler);
  server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(() => server.close());

const updateUser = (query: string, headers: Record<string, string> = {}, body: object = VALID_BODY) =>
  fetch(`${base}/api/public/update_user${query}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

const VALID_BODY = { api_key: 'k', api_key_secret: 's', target_user: { user_id: '0123456789abcdef0123456789abcdef', first_name: 'Ada' } };

describe('the contract validation as installed', () => {
  it('leaves a request without a query string as express made it: the query mutator skipped', async () => {
    const answer = await updateUser('', { 'Idempotency-Key': 'a-key-of-its-own' });
    assert.equal(answer.status, 200);
    assert.deepEqual(
      await answer.json(),
      { ownQuery: false, query: {} } satisfies Seen,
      'patches/express-openapi-validator+5.6.2.patch is not applied',
    );
  });

  it('still checks such a request: its headers and its body', async () => {
    assert.equal((await updateUser('', { 'Idempotency-Key': 'x'.repeat(300) })).status, 400, 'a header longer than the contract allows');
    assert.equal((await updateUser('', {}, { api_key: 'k' })).status, 400, 'a body without what the contract requires');
  });

  it('still reads a query string: an unknown parameter is refused', async () => {
    assert.equal((await updateUser('?extra=1')).status, 400);
  });
});
