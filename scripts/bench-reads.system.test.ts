/**
 * A smoke of `npm run bench`, its read scenarios, SCIM, PostgreSQL and the processes (the
 * writes are in bench.system.test.ts, which runs beside this file, and which checks that the
 * two leave no scenario out).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { benchSmoke, ratioProblems, READ_SCENARIOS } from './bench/testing/smoke.js';

describe('npm run bench (smoke): listings, SCIM, PostgreSQL, processes', { timeout: 180_000 }, () => {
  it('runs each scenario and writes the figures as JSON', async () => {
    const run = await benchSmoke(READ_SCENARIOS);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /start to first 200/);
    const { figures } = run;
    for (const key of [
      'get_users_p99_ms',
      'startup_ms',
      'get_users_p99_ms_one_connection',
      'get_users_cursor_p99_ms',
      'get_users_search_p99_ms',
      'every_user_ms',
      'every_user_rss_growth_mb',
      'get_user_p99_during_listings_ms',
      'scim_lookup_p99_ratio',
      'scim_deactivation_ratio',
      'large_group_rename_healthz_ms',
      'large_group_delete_healthz_ms',
      'every_user_gzip_mb',
      'every_user_br_mb',
      'cli_call_ms',
      'scim_worst_group_patch_healthz_max_ms',
      'scim_worst_user_patch_healthz_max_ms',
      'postgres_update_user_rps',
      'postgres_every_user_ms',
      'console_first_page_p99_ms',
    ]) {
      assert.equal(typeof figures[key], 'number', key);
    }
    assert.ok(figures.get_users_rps > 0);
    assert.equal(figures.errors, 0, 'no request failed');
    assert.equal(figures.scenarios.length, 21);
    assert.deepEqual(
      ratioProblems(figures.comparisons, [
        'scim_lookup_p99_vs_get_user',
        'scim_deactivation_vs_update_user',
        'postgres_update_user_vs_sqlite',
        'postgres_two_instances_update_user_vs_sqlite',
        'postgres_pool_20_vs_sqlite',
      ]),
      [],
    );
    assert.ok(figures.every_user_mb > 5, 'the listing held every one of the 20,000 users');
  });
});
