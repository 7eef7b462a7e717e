/**
 * The contract gate's checks whose answers depend on the store, on PostgreSQL: the fuzz's
 * valid and invalid requests and the hostile corpus. Its values are where the two databases
 * differ (PostgreSQL's text cannot hold U+0000, which SQLite stored, and the gate found it
 * answered 500 there: decision 47). Dredd's examples, the routes and the mock are the same on
 * either store and run once, on SQLite (gate.system.test.ts); so does the fuzz at full length.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONTRACT_OPERATIONS, SCIM_CONTRACT_OPERATIONS } from './contract-schemas.js';
import { passed } from './gate.js';
import { formatReport } from './report.js';
import { fuzzTallyProblems, gate } from './testing/self-check.js';

/** A third of the full fuzz: about 20 s here, where the full one takes about 50. */
const RUNS_ON_POSTGRES = 30;

describe('the contract gate on PostgreSQL', { timeout: 300_000 }, () => {
  it(`passes its fuzz (${RUNS_ON_POSTGRES} valid and invalid requests per operation) and its hostile corpus`, async () => {
    const results = await gate({}, ['fuzz', 'hostile'], RUNS_ON_POSTGRES);
    assert.ok(passed(results), formatReport('the real service on PostgreSQL', results));
    assert.deepEqual(
      results.map((result) => result.name),
      ['fuzz', 'hostile'],
    );
    assert.match(results[1]!.summary, /^(2[5-9]|[3-9]\d) hostile requests, 0 failures$/);
    const tallies = results[0]!.details ?? [];
    assert.equal(tallies.length, (CONTRACT_OPERATIONS.length + SCIM_CONTRACT_OPERATIONS.length) * 2);
    assert.deepEqual(fuzzTallyProblems(tallies, RUNS_ON_POSTGRES), []);
  });
});
