/**
 * Runs test files as `node --test --test-reporter=spec` does, each in a process of
 * its own, a few at a time, but in the order given: `node --test` sorts the files it
 * is given by name. The slowest start first (scripts/test-durations.ts), and what
 * each took is kept for the next run.
 *
 *   node --import tsx scripts/run-test-files.ts <run name> <concurrency> <file> …
 *
 * scripts/run-tests.ts starts it for the system tier, whose files run in their written
 * order; the other tiers' orders are random, a flag of `node --test`'s own.
 * The exit code is 1 when a test failed, as `node --test`'s is.
 */
import { relative, resolve } from 'node:path';
import { run } from 'node:test';
import { spec } from 'node:test/reporters';
import { finished } from 'node:stream/promises';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { readTestDurations, recordTestDurations, slowestFirst, testDurationsFile } from './test-durations.js';

/** What node:test tells of a test as it completes, as far as this reads it. */
interface Completed {
  nesting: number;
  name: string;
  file?: string;
  details: { duration_ms: number };
}

async function main(): Promise<void> {
  const [runName, concurrencyArgument, ...given] = process.argv.slice(2);
  const concurrency = Number(concurrencyArgument);
  if (!runName || !(concurrency > 0) || given.length === 0) {
    process.stderr.write('usage: node --import tsx scripts/run-test-files.ts <run name> <concurrency> <file> …\n');
    process.exit(2);
  }
  const durationsFile = testDurationsFile();
  const files = slowestFirst(given, readTestDurations(durationsFile)[runName]);
  const measured: Record<string, number> = {};
  const stream = run({ files: files.map((file) => resolve(PROJECT_ROOT, file)), concurrency });
  stream.on('test:fail', (event: { todo?: unknown }) => {
    if (!event.todo) process.exitCode = 1;
  });
  stream.on('test:complete', (event: Completed) => {
    // The test of a whole file is the one at the top named by the file's path (from the working directory).
    if (event.nesting === 0 && event.file && resolve(event.name) === event.file) {
      measured[relative(PROJECT_ROOT, event.file)] = Math.round(event.details.duration_ms);
    }
  });
  const reported = stream.compose(spec);
  reported.pipe(process.stdout);
  await finished(reported);
  try {
    recordTestDurations(durationsFile, runName, measured);
  } catch (error) {
    // The order of the next run is a speed-up: not worth failing the tests over.
    process.stderr.write(`run-test-files: could not keep the files' times in ${durationsFile}: ${String(error)}\n`);
  }
}

await main();
