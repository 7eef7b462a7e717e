/**
 * The test totals of every tier run, per Node version and store.
 *
 * `scripts/run-tests.ts` records the closing summary of each run of Node's
 * test runner (one JSON file per Node version, tier and store); the Node
 * matrix (`scripts/node-matrix.ts`) points its runs at the same folder. This
 * prints them as one table, then the grand total as the last line:
 *
 *   tsx scripts/test-totals.ts            print what was recorded
 *   tsx scripts/test-totals.ts --clear    forget it (`.ci/run` starts so)
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { PROJECT_ROOT } from '../lib/project-root.js';

/** The counts of one closing summary of Node's test runner. */
export interface TestTotals {
  tests?: number;
  pass?: number;
  fail?: number;
  skipped?: number;
  todo?: number;
  cancelled?: number;
  duration_ms?: number;
  /**
   * What was skipped, by name and reason: each skipped test, and each skipped
   * suite, whose tests the runner's own `skipped` count leaves out.
   */
  skipped_names?: string[];
}

export interface TotalsRecord extends TestTotals {
  node: string;
  tier: string;
  store: 'sqlite' | 'postgres' | null;
}

/** Where the records go: TEST_TOTALS_DIR, or test-artifacts/totals. */
export function totalsDirectory(): string {
  return process.env.TEST_TOTALS_DIR || join(PROJECT_ROOT, 'test-artifacts', 'totals');
}

const SUMMARY_LINE = /^ℹ (tests|pass|fail|skipped|todo|cancelled|duration_ms) (\d+(?:\.\d+)?)$/;

const SKIP_LINE = /^\s*﹣ (.+?) \(\d+(?:\.\d+)?ms\)(?: # (.*))?$/;

/** A test or suite the spec reporter marks skipped (`﹣ in a real browser (0.5ms) # no Chromium`), as `name (reason)`. */
export function parseSkipLine(line: string): string | undefined {
  const match = SKIP_LINE.exec(stripVTControlCharacters(line));
  if (!match) return undefined;
  return match[2] ? `${match[1]} (${match[2]})` : match[1];
}

/** How many were skipped: the names, when recorded (a skipped suite is one), else the runner's count. */
const skippedIn = (record: TestTotals) => record.skipped_names?.length ?? record.skipped ?? 0;

/** One line of the spec reporter's closing summary (`ℹ pass 43`) as a count; {} for any other line. */
export function parseSummaryLine(line: string): TestTotals {
  const match = SUMMARY_LINE.exec(stripVTControlCharacters(line).trim());
  return match ? { [match[1]!]: Number(match[2]) } : {};
}

export function recordTotals(record: Omit<TotalsRecord, 'node'>): void {
  const node = process.versions.node;
  const directory = totalsDirectory();
  mkdirSync(directory, { recursive: true });
  const name = ['node', node, record.tier, record.store].filter(Boolean).join('-');
  writeFileSync(join(directory, `${name}.json`), `${JSON.stringify({ node, ...record })}\n`);
}

export function readTotals(directory = totalsDirectory()): TotalsRecord[] {
  let files: string[];
  try {
    files = readdirSync(directory).filter((file) => file.endsWith('.json'));
  } catch {
    return [];
  }
  return files.map((file) => JSON.parse(readFileSync(join(directory, file), 'utf8')) as TotalsRecord);
}

const TIER_ORDER = ['unit', 'integration', 'system'];
const STORE_ORDER = [null, 'sqlite', 'postgres'];
const STORE_NAMES = { sqlite: 'SQLite', postgres: 'PostgreSQL' } as const;

function byVersion(a: string, b: string): number {
  const [x, y] = [a, b].map((version) => version.split('.').map(Number));
  for (let index = 0; index < 3; index++) if (x![index] !== y![index]) return x![index]! - y![index]!;
  return 0;
}

/** The table, one line per run, a subtotal per Node version, and the grand total last. */
export function formatTotals(records: TotalsRecord[]): string {
  const lines: string[] = [];
  const sum = (list: TotalsRecord[], key: 'pass' | 'fail' | 'skipped') =>
    list.reduce((total, record) => total + (key === 'skipped' ? skippedIn(record) : (record[key] ?? 0)), 0);
  for (const node of [...new Set(records.map((record) => record.node))].sort(byVersion)) {
    const runs = records
      .filter((record) => record.node === node)
      .sort(
        (a, b) => TIER_ORDER.indexOf(a.tier) - TIER_ORDER.indexOf(b.tier) || STORE_ORDER.indexOf(a.store) - STORE_ORDER.indexOf(b.store),
      );
    lines.push(`Node ${node}: ${sum(runs, 'pass')} passed, ${sum(runs, 'fail')} failed, ${sum(runs, 'skipped')} skipped`);
    for (const run of runs) {
      const name = run.store ? `${run.tier} on ${STORE_NAMES[run.store]}` : run.tier;
      const seconds = run.duration_ms === undefined ? '' : `, ${Math.round(run.duration_ms / 1000)} s`;
      lines.push(`  ${name.padEnd(27)} ${run.pass ?? 0} passed, ${run.fail ?? 0} failed, ${skippedIn(run)} skipped${seconds}`);
    }
  }
  const skipped = records.flatMap((record) =>
    (record.skipped_names ?? []).map(
      (name) => `${name}, ${record.tier}${record.store ? ` on ${STORE_NAMES[record.store]}` : ''}, Node ${record.node}`,
    ),
  );
  const which = skipped.length > 0 ? `: ${skipped.join('; ')}` : '';
  lines.push(`tests: ${sum(records, 'pass')} passed, ${sum(records, 'fail')} failed, ${sum(records, 'skipped')} skipped${which}`);
  return `${lines.join('\n')}\n`;
}

function main(): void {
  const directory = totalsDirectory();
  if (process.argv.includes('--clear')) {
    rmSync(directory, { recursive: true, force: true });
    return;
  }
  const records = readTotals(directory);
  if (records.length === 0) {
    process.stderr.write(`no test totals recorded in ${relative(process.cwd(), directory) || '.'}\n`);
    process.exitCode = 1;
    return;
  }
  process.stdout.write(`\n== test totals, per Node version\n${formatTotals(records)}`);
}

if (process.argv[1] && relative(process.argv[1], join(PROJECT_ROOT, 'scripts', 'test-totals.ts')) === '') main();
