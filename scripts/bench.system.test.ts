/**
 * A smoke of `npm run bench`, its write scenarios (the reads, SCIM, PostgreSQL and the
 * processes are in bench-reads.system.test.ts, which runs beside this file): every scenario
 * runs (for a quarter of a second) and the JSON it writes holds the figures the reference run
 * reports. The figures themselves are not judged here: timing on a shared machine is the
 * bench's job, not a test's.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runScript } from '../lib/testing/run-script.js';
import { SCENARIO_NAMES } from './bench/scenarios/index.js';
import { benchSmoke, ratioProblems, READ_SCENARIOS, WRITE_SCENARIOS } from './bench/testing/smoke.js';

describe('npm run bench (smoke): writes, events, the audit trail, memory', { timeout: 180_000 }, () => {
  it('leaves no scenario out of the smoke, and refuses a name it does not know', async () => {
    assert.deepEqual([...WRITE_SCENARIOS, ...READ_SCENARIOS].sort(), [...SCENARIO_NAMES].sort());
    const misspelt = await runScript('scripts/bench.ts', ['--quick', '--only', 'writes,lisitng'], {});
    assert.equal(misspelt.code, 2);
    assert.match(misspelt.stderr, /no scenario lisitng; the scenarios are writes, events/);
  });

  it('runs each scenario and writes the figures as JSON', async () => {
    const run = await benchSmoke(WRITE_SCENARIOS);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /\(a\) baseline/);
    assert.match(run.stdout, /update_user against the baseline: \d+\.\d\d× \(median of 5 interleaved rounds, \d+\.\d\d–\d+\.\d\d\)/);
    const { figures } = run;
    for (const key of [
      'baseline_rps',
      'update_user_rps',
      'update_user_p99_ms',
      'update_user_first_answers_ms',
      'baseline_first_answers_ms',
      'ratio_update_vs_baseline',
      'rss_after_mb',
      'validator_cost_ratio',
      'memory_rss_start_mb',
      'memory_rss_end_mb',
      'memory_rss_floor_growth_mb',
      'audit_trail_ratio',
      'get_audit_events_p99_ms_one_connection',
      'get_audit_events_of_user_p99_ms',
      'commit_to_receipt_p50_ms',
      'commit_to_receipt_p99_ms',
      'drain_deliveries_per_second',
      'get_events_page_1000_p99_ms',
      'memory_heap_start_mb',
      'memory_heap_after_collection_mb',
      'memory_young_collections',
      'memory_full_collections',
      'memory_promoted_kb_per_request',
    ]) {
      assert.equal(typeof figures[key], 'number', key);
    }
    assert.ok(figures.baseline_rps > 0 && figures.update_user_rps > 0);
    assert.equal(figures.errors, 0, 'no request failed');
    assert.equal(figures.scenarios.length, 16);
    assert.equal(figures.drain_delivered, figures.drain_events + 2, 'the backlog, and the key and webhook made before it, all delivered');
    assert.ok(figures.commit_to_receipt_received >= figures.commit_to_receipt_writes * 0.9, 'the steady writes delivered');
    assert.deepEqual(
      ratioProblems(figures.comparisons, [
        'update_user_vs_baseline',
        'update_user_p99_vs_baseline',
        'update_user_vs_mock',
        'with_validation_vs_without',
        'with_audit_vs_without',
        'update_user_one_webhook_vs_none',
      ]),
      [],
    );
    assert.equal(figures.ratio_update_vs_baseline, figures.comparisons.update_user_vs_baseline.median);
    // Latencies on open connections, each connection's first answer apart (kit.ts, Latencies).
    assert.match(
      run.stdout,
      /update_user's p99 against the baseline's, on open connections: \d+\.\d\d× .*the last of \d+ new connections answered first after \d+ ms/,
    );
    for (const scenario of figures.scenarios)
      assert.ok(scenario.firstAnswers >= 0 && scenario.p99 >= scenario.p50, JSON.stringify(scenario));
    assert.ok(figures.audit_trail_ratio > 0, 'update_user measured with and without its audit trail');
    // The collector's figures come from the service itself, over its inspector: a load collects the young generation.
    assert.ok(figures.memory_young_collections > 0, 'young collections counted during (h)');
    assert.match(run.stdout, /\(h\) collections over the load: \d+ of the young generation, promoting \d+(\.\d+)? KB a request/);
  });
});
