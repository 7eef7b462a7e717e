/**
 * A smoke of `npm run bench`: every scenario runs (for half a second) and the
 * JSON it writes holds the figures the reference run reports. The figures
 * themselves are not judged here: timing on a shared machine is the bench's
 * job, not a test's.
 */
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { runScript } from '../lib/testing/run-script.js';

describe('npm run bench (smoke)', { timeout: 180_000 }, () => {
  it('runs every scenario and writes the figures as JSON', async () => {
    const out = join(tmpdir(), `bench-smoke-${process.pid}.json`);
    try {
      const run = await runScript('scripts/bench.ts', ['--quick', '--out', out], {
        BENCH_DURATION_S: '0.5',
        BENCH_MEMORY_DURATION_S: '2',
        BENCH_ROUND_S: '0.5',
        BENCH_DRAIN_EVENTS: '1000',
        BENCH_LARGE_GROUP: '2000',
        // Smaller directories than a measurement needs: the smoke checks that every scenario runs.
        BENCH_LARGE_USERS: '20000',
        BENCH_AUDIT_EVENTS: '20000',
      });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /\(a\) baseline/);
      assert.match(run.stdout, /start to first 200/);
      assert.match(run.stdout, /update_user against the baseline: \d+\.\d\d× \(median of 5 interleaved rounds, \d+\.\d\d–\d+\.\d\d\)/);
      const figures = JSON.parse(await readFile(out, 'utf8'));
      for (const key of [
        'baseline_rps',
        'update_user_rps',
        'update_user_p99_ms',
        'ratio_update_vs_baseline',
        'get_users_p99_ms',
        'startup_ms',
        'rss_after_mb',
        'validator_cost_ratio',
        'memory_rss_start_mb',
        'memory_rss_end_mb',
        'memory_rss_floor_growth_mb',
        'get_users_p99_ms_one_connection',
        'get_users_cursor_p99_ms',
        'get_users_search_p99_ms',
        'every_user_ms',
        'every_user_rss_growth_mb',
        'get_user_p99_during_listings_ms',
        'audit_trail_ratio',
        'get_audit_events_p99_ms_one_connection',
        'scim_lookup_p99_ratio',
        'scim_deactivation_ratio',
        'large_group_rename_healthz_ms',
        'large_group_delete_healthz_ms',
        'every_user_gzip_mb',
        'every_user_br_mb',
        'cli_call_ms',
        'commit_to_receipt_p50_ms',
        'commit_to_receipt_p99_ms',
        'drain_deliveries_per_second',
        'get_events_page_1000_p99_ms',
        'scim_worst_group_patch_healthz_max_ms',
        'scim_worst_user_patch_healthz_max_ms',
        'memory_heap_start_mb',
        'memory_heap_after_collection_mb',
        'postgres_update_user_rps',
        'postgres_every_user_ms',
        'console_first_page_p99_ms',
      ]) {
        assert.equal(typeof figures[key], 'number', key);
      }
      assert.ok(figures.baseline_rps > 0 && figures.update_user_rps > 0 && figures.get_users_rps > 0);
      assert.equal(figures.errors, 0, 'no request failed');
      assert.equal(figures.scenarios.length, 36);
      assert.equal(figures.drain_delivered, figures.drain_events + 2, 'the backlog, and the key and webhook made before it, all delivered');
      assert.ok(figures.commit_to_receipt_received >= figures.commit_to_receipt_writes * 0.9, 'the steady writes delivered');
      // Each comparison: at least five interleaved rounds, the median inside the range of the rounds. A round of
      // half a second may answer nothing on a machine busy with other tests (a ratio of 0, or none when the
      // first contender's round is the empty one); the median may not.
      for (const name of [
        'update_user_vs_baseline',
        'update_user_vs_mock',
        'with_validation_vs_without',
        'with_audit_vs_without',
        'scim_lookup_p99_vs_get_user',
        'scim_deactivation_vs_update_user',
        'update_user_one_webhook_vs_none',
        'postgres_update_user_vs_sqlite',
        'postgres_two_instances_update_user_vs_sqlite',
        'postgres_pool_20_vs_sqlite',
      ]) {
        const ratio = figures.comparisons[name];
        assert.ok(ratio.rounds >= 5, name);
        assert.ok(
          ratio.median > 0 && ratio.low >= 0 && ratio.low <= ratio.median && ratio.median <= ratio.high && Number.isFinite(ratio.high),
          `${name}: ${JSON.stringify(ratio)}`,
        );
      }
      assert.equal(figures.ratio_update_vs_baseline, figures.comparisons.update_user_vs_baseline.median);
      assert.ok(figures.audit_trail_ratio > 0, 'update_user measured with and without its audit trail');
      assert.ok(figures.every_user_mb > 5, 'the listing held every one of the 20,000 users');
    } finally {
      await rm(out, { force: true });
    }
  });
});
