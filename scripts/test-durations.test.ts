import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readTestDurations, recordTestDurations, slowestFirst, testDurationsFile } from './test-durations.js';

describe("the test files' times, for starting the slowest first", () => {
  it('start the files with no time first, as given, then the slowest', () => {
    const known = { 'a.system.test.ts': 5_000, 'b.system.test.ts': 60_000, 'c.system.test.ts': 20_000 };
    assert.deepEqual(
      slowestFirst(['a.system.test.ts', 'b.system.test.ts', 'new.system.test.ts', 'c.system.test.ts', 'other.system.test.ts'], known),
      ['new.system.test.ts', 'other.system.test.ts', 'b.system.test.ts', 'c.system.test.ts', 'a.system.test.ts'],
    );
    assert.deepEqual(slowestFirst(['b', 'a']), ['b', 'a'], 'with no times, the order given');
  });

  it('are kept by run, each run merged with what it measured before, and read back', () => {
    const directory = mkdtempSync(join(tmpdir(), 'test-durations-'));
    try {
      const file = join(directory, 'cache', 'test-durations.json');
      assert.deepEqual(readTestDurations(file), {}, 'none yet');
      recordTestDurations(file, 'system on sqlite', { 'a.system.test.ts': 1_000, 'b.system.test.ts': 2_000 });
      recordTestDurations(file, 'system on postgres', { 'a.system.test.ts': 3_000 });
      recordTestDurations(file, 'system on sqlite', { 'b.system.test.ts': 4_000 });
      assert.deepEqual(readTestDurations(file), {
        'system on sqlite': { 'a.system.test.ts': 1_000, 'b.system.test.ts': 4_000 },
        'system on postgres': { 'a.system.test.ts': 3_000 },
      });
      writeFileSync(file, '{ cut short');
      assert.deepEqual(readTestDurations(file), {}, 'what cannot be read is no order, not a failure');
      recordTestDurations(file, 'system on sqlite', { 'a.system.test.ts': 1_500 });
      assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { 'system on sqlite': { 'a.system.test.ts': 1_500 } });
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it("are kept in the machine's cache of the project, or where TEST_DURATIONS_FILE says", () => {
    assert.match(testDurationsFile({}), /workspace-user-api.test-durations\.json$/);
    assert.equal(testDurationsFile({ TEST_DURATIONS_FILE: '/elsewhere/times.json' }), '/elsewhere/times.json');
  });
});
