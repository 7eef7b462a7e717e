/**
 * `npm run bench`: the service's speed side by side with a baseline measured
 * in the same run, on this machine (autocannon over loopback; every server
 * in a process of its own, the load in this one).
 *
 *   npm run bench                       the reference run (10 s per scenario; comparisons 7 rounds of 3 s)
 *   npm run bench -- --quick            2 s per scenario; comparisons 5 rounds of 2 s
 *   npm run bench -- --out bench.json   also write the figures as JSON
 *   npm run bench -- --only events      the scenarios named (functions of scripts/bench/scenarios/), comma-separated
 *
 * A comparison (update_user against the baseline; the service against the
 * Prism mock; update_user with and without validation and the audit trail)
 * runs its contenders side by side, each in a process of its own, in
 * interleaved rounds (A, B, then B, A …), and reports the median of the
 * per-round ratios with their range: the machine's speed drifts over a run,
 * and a ratio of two loads measured a second apart drifts far less than one of
 * two loads measured a minute apart.
 *
 * Scenarios: (a) baseline, bare express answering a fixed user; (b) update_user
 * without a password on 10,000 users; (c) get_users, a page of 100 from
 * 100,000 users at a random depth, by page number and by cursor; (d) update_user with a password change, and get_user's p99
 * during that burst; (e) the Prism mock answering update_user; (f) the sample
 * server's /api/data; (g) time from process start to the first 200. Also
 * update_user without request validation (what the validator costs) and (h)
 * the service's RSS over a long update_user load (60 s; 4 s with --quick);
 * (i) get_users listing all 100,000 users at once (time to the last byte,
 * bytes on the wire plain, gzip'd and Brotli'd, RSS before and at its peak),
 * and get_user's p99 while 10 clients do that;
 * (j) update_user without its audit trail (what the trail costs, against the same build
 * under tsx measured before and after it); (k)
 * get_audit_events, a page of 100 by cursor from 1,000,000 events, at one connection;
 * on 100,000 users, (l) SCIM's `filter=userName eq "…"` (Entra ID's lookup before every
 * create) against get_user, p99 to p99, and (m) a SCIM PATCH that deactivates a user
 * against update_user making the same change, req/s to req/s: both interleaved;
 * (n) `npm run cli -- --version` in the built checkout (the build check skips the build);
 * (o) update_user with one webhook against none, (p) commit-to-receipt latency at 500
 * writes/s, (q) a backlog of 100,000 events drained (scenarios/events.ts); (r) get_events, a
 * page of 1,000 over 1,000,000 events (scenarios/audit-page.ts); (s) /healthz beside the worst SCIM
 * PATCHes the bounds allow (scenarios/scim.ts); (t) PostgreSQL beside SQLite: update_user and get_user
 * on one instance and two, the every-user listing, and the pool's size (scenarios/postgres.ts).
 *
 * Req/s are counted once every connection of a load is open, and latencies (p50, p99) are
 * those of the answers on open connections; "all open" is when the last of a load's
 * connections had its first answer, which waits for the server to accept the connection: Node
 * accepts one per turn of its event loop, so under load that figure grows with the turn's
 * length, not with the operation's cost (kit.ts, Latencies).
 *
 * Each scenario is a module of scripts/bench/scenarios/; what they share (the
 * settings, starting servers, loads and comparisons) is scripts/bench/kit.ts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Table from 'cli-table3';
import { seedUsers } from './bench/seed.js';
import { CONNECTIONS, DURATION_S, LARGE_USERS, type Measured, type Ratio, ROUND_S, ROUNDS } from './bench/kit.js';
import { SCENARIO_NAMES, SCENARIOS } from './bench/scenarios/index.js';
import type { BenchRun } from './bench/scenarios/run.js';

const outIndex = process.argv.indexOf('--out');
const outFile = outIndex > 0 ? process.argv[outIndex + 1] : undefined;

/** `--only events,auditPage`: those scenarios alone (named as their functions are). */
const onlyIndex = process.argv.indexOf('--only');
const only = onlyIndex > 0 ? new Set(process.argv[onlyIndex + 1]?.split(',')) : undefined;
const unknown = [...(only ?? [])].filter((name) => !SCENARIO_NAMES.includes(name));
if (unknown.length > 0) {
  // A misspelt name would otherwise run nothing and say nothing.
  process.stderr.write(`bench: no scenario ${unknown.join(', ')}; the scenarios are ${SCENARIO_NAMES.join(', ')}\n`);
  process.exit(2);
}

async function main(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'workspace-bench-'));
  const results: Measured[] = [];
  const figures: Record<string, number> = {};
  const comparisons: Record<string, Ratio> = {};
  const lines: string[] = [];
  try {
    process.stderr.write(
      `seeding 10,000 and ${LARGE_USERS.toLocaleString('en')} users; ${DURATION_S} s per scenario, ${CONNECTIONS} connections\n`,
    );
    const seeding = performance.now();
    const run: BenchRun = {
      directory,
      small: await seedUsers(join(directory, 'users-10k.db'), 10_000),
      large: await seedUsers(join(directory, 'users-100k.db'), LARGE_USERS),
    };
    process.stderr.write(`seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s\n`);
    for (const scenario of SCENARIOS) {
      if (only && !only.has(scenario.name)) continue;
      const started = performance.now();
      const outcome = await scenario(run);
      process.stderr.write(`${scenario.name}: ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
      results.push(...outcome.results);
      Object.assign(figures, outcome.figures);
      Object.assign(comparisons, outcome.comparisons);
      lines.push(...outcome.lines);
    }
    figures.errors = results.reduce((sum, result) => sum + result.errors, 0);

    const baseline = results.find((result) => result.name.startsWith('(a)')) ?? results[0]!;
    const table = new Table({
      head: ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'all open ms', 'CPU µs/req', '× baseline', 'errors'],
      style: { head: [], border: [], compact: true },
    });
    for (const result of results) {
      table.push([
        result.name,
        String(result.rps),
        String(result.p50),
        String(result.p99),
        String(result.firstAnswers),
        result.cpuUsPerRequest === undefined ? '–' : String(result.cpuUsPerRequest),
        (result.rps / baseline.rps).toFixed(2),
        String(result.errors),
      ]);
    }
    process.stdout.write(`${table.toString()}\n${lines.join('\n')}\n`);
    if (outFile)
      await writeFile(
        outFile,
        `${JSON.stringify({ duration_s: DURATION_S, connections: CONNECTIONS, rounds: ROUNDS, round_s: ROUND_S, ...figures, comparisons, scenarios: results }, null, 2)}\n`,
      );
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

await main();
