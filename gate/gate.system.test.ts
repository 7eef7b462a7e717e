/**
 * The contract gate in `npm test`: it passes against the real service (and it
 * goes red against deliberately broken variants of it, gate-variants.system.test.ts,
 * which is what makes its passing worth something).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONTRACT_OPERATIONS, SCIM_CONTRACT_OPERATIONS } from './contract-schemas.js';
import { DEFAULT_FUZZ_RUNS } from './fuzz.js';
import { CHECKS, passed } from './gate.js';
import { formatReport } from './report.js';
import { fuzzTallyProblems, gate } from './testing/self-check.js';

describe('the contract gate', { timeout: 600_000 }, () => {
  it('passes against the real service, with every declared status a transaction and 100 valid and 100 invalid requests per operation (one valid where it takes no input)', async () => {
    const results = await gate({}, CHECKS, DEFAULT_FUZZ_RUNS);
    assert.ok(passed(results), formatReport('the real service', results));
    assert.deepEqual(
      results.map((result) => result.name),
      ['routes', 'dredd', 'fuzz', 'hostile', 'prism proxy', 'mock parity'],
    );
    assert.match(results[3]!.summary, /^(2[5-9]|[3-9]\d) hostile requests, 0 failures$/);
    assert.match(results[1]!.summary, /^578 transactions \(349 workspace, 229 SCIM\), 578 passed, 0 failed, 0 not checked$/);
    // Each operation's tally of statuses, e.g. "getUser valid: 200×65 401×13 404×22", "SCIM patchUser invalid: 400×100".
    const tallies = results[2]!.details ?? [];
    assert.equal(tallies.length, (CONTRACT_OPERATIONS.length + SCIM_CONTRACT_OPERATIONS.length) * 2);
    assert.equal(CONTRACT_OPERATIONS.length, 43, 'thirty-one JSON operations, six GETs and their six HEADs');
    assert.equal(SCIM_CONTRACT_OPERATIONS.length, 17, 'five discovery operations, six on Users and six on Groups');
    // An operation that takes no input (the six GETs and their HEADs) has one valid request, sent once.
    assert.equal(tallies.filter((tally) => / valid: 200×1$/.test(tally)).length, 12);
    assert.deepEqual(fuzzTallyProblems(tallies, DEFAULT_FUZZ_RUNS), []);
    for (const tally of tallies) {
      if (tally.includes(' invalid:')) assert.match(tally, /^(SCIM )?\w+ invalid: 400×\d+$/, 'every invalid request refused with 400');
    }
  });
});
