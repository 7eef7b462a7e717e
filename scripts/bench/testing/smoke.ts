/**
 * A smoke of `npm run bench` for its tests: the scenarios named run for a quarter of a second each,
 * on smaller directories than a measurement needs, and the JSON the run writes is read back.
 * The bench's scenarios are split between two test files, which run side by side.
 */
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runScript } from '../../../lib/testing/run-script.js';

/** The scenarios of each smoke file: bench.system.test.ts checks that together they are every one. */
export const WRITE_SCENARIOS = ['writes', 'events', 'auditPage', 'memory'];
export const READ_SCENARIOS = ['listing', 'scim', 'postgres', 'processes'];

export interface SmokeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  figures: any;
}

export async function benchSmoke(scenarios: readonly string[]): Promise<SmokeRun> {
  const out = join(tmpdir(), `bench-smoke-${process.pid}-${scenarios.join('-')}.json`);
  try {
    const run = await runScript('scripts/bench.ts', ['--quick', '--only', scenarios.join(','), '--out', out], {
      // Ten connections, not fifty: a quarter second is then enough to open them and read a rate,
      // and what a load leaves in its servers (kit.ts, untilQuiet) is drained five times sooner.
      BENCH_CONNECTIONS: '10',
      BENCH_DURATION_S: '0.25',
      BENCH_MEMORY_DURATION_S: '2',
      BENCH_ROUND_S: '0.25',
      BENCH_DRAIN_EVENTS: '1000',
      BENCH_LARGE_GROUP: '2000',
      BENCH_LARGE_USERS: '20000',
      BENCH_AUDIT_EVENTS: '20000',
    });
    const figures = run.code === 0 ? JSON.parse(await readFile(out, 'utf8')) : undefined;
    return { ...run, figures };
  } finally {
    await rm(out, { force: true });
  }
}

/**
 * Each comparison: at least five interleaved rounds, the median inside the range of the rounds.
 * A round of a quarter second may answer nothing on a machine busy with other tests (a ratio of 0,
 * or none when the first contender's round is the empty one); the median may not.
 */
export function ratioProblems(
  comparisons: Record<string, { median: number; low: number; high: number; rounds: number }>,
  names: string[],
): string[] {
  return names.flatMap((name) => {
    const ratio = comparisons[name];
    if (!ratio) return [`${name}: not measured`];
    if (ratio.rounds < 5) return [`${name}: ${ratio.rounds} rounds`];
    const sane =
      ratio.median > 0 && ratio.low >= 0 && ratio.low <= ratio.median && ratio.median <= ratio.high && Number.isFinite(ratio.high);
    return sane ? [] : [`${name}: ${JSON.stringify(ratio)}`];
  });
}
