/**
 * Runs one tier of tests, chosen by file name (docs/development.md, Tests):
 *
 *   tsx scripts/run-tests.ts unit | integration | system [path prefix …]
 *
 * With path prefixes, only the tier's files under them run (the Node matrix
 * runs a chosen few this way).
 *
 *   <name>.test.ts               unit: no database, no child process; seconds in all
 *   <name>.integration.test.ts   the app or the store on a database
 *   <name>.system.test.ts        whole processes and outside tools (the gate, npm pack,
 *                                the bench, Chromium, python3)
 *
 * Before the integration and system tiers, the packages are built when a
 * source changed since the last build, as `npm start` builds them
 * (scripts/build-in-development.mjs).
 *
 * The tests where a difference between the stores can show run on each
 * store: SQLite, then a throwaway PostgreSQL (scripts/with-postgres.ts). They
 * are the store's own (repositories, migrations, transactions), the handlers
 * over it, the operator commands, the service as a process, and the checks of
 * credentials and hostile bytes that reach the store (ON_BOTH_STORES). A file
 * with `sqlite` or `postgres` in its name or folder runs on that store only.
 * Every other test (HTTP, the SDKs and the CLI, the gate, the tooling) reaches
 * the store only through the handlers whose behaviour on each store those
 * tests cover, and runs once, on SQLite.
 *
 * The unit and integration tests run in a random order within each file
 * (where the Node running them can), so that no test can lean on data
 * another left behind; the seed is printed, and TEST_SEED=<seed> repeats an
 * order. The system tests run in their written order: several are one
 * process's story told step by step. The system tier's files, a minute or
 * more for some, start slowest first, by their times in the last run
 * (scripts/test-durations.ts).
 */
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { accessSync, chmodSync, constants, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { createInterface } from 'node:readline';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { parseSkipLine, parseSummaryLine, recordTotals, type TestTotals } from './test-totals.js';

export const TIERS = ['unit', 'integration', 'system'] as const;
export type Tier = (typeof TIERS)[number];
type StoreName = 'sqlite' | 'postgres';

const TEST_FOLDERS = ['lib', 'server', 'client', 'cli', 'gate', 'contract-tests', 'scripts'];

export function tierOf(file: string): Tier {
  if (file.endsWith('.integration.test.ts')) return 'integration';
  if (file.endsWith('.system.test.ts')) return 'system';
  return 'unit';
}

/** Where a test can meet a difference between the stores (paths, or the start of a file name): run on both. */
export const ON_BOTH_STORES = [
  'server/store/',
  'server/handlers/',
  'server/username/',
  'server/admin/',
  'server/audit-retention.',
  'server/main.',
  'server/http/authenticate.',
  'server/http/hostile-input.',
  // A group's rewrite (its version check, its members written and audited) is SQL of its own,
  // and so is a user's write at the version read, which SCIM's PATCH races depend on.
  'server/scim/groups.',
  'server/scim/users.',
  // The directory's rules, each once on both stores.
  'server/directory/',
].map((path) => path.replaceAll('/', sep));

/** The stores a test file runs on: none for unit tests. */
export function storesOf(file: string): StoreName[] {
  if (tierOf(file) === 'unit') return [];
  const parts = file.split(sep).flatMap((part) => part.split('.'));
  if (parts.includes('postgres')) return ['postgres'];
  if (parts.includes('sqlite')) return ['sqlite'];
  return ON_BOTH_STORES.some((path) => file.startsWith(path)) ? ['sqlite', 'postgres'] : ['sqlite'];
}

/**
 * The project's test files, relative to `root`. Only the project's own: a folder's installed
 * packages (`server/node_modules`) are not looked into, nor is a symbolic link followed (Node's
 * recursive `readdirSync` follows links to folders: a link to another checkout would run its tests
 * here, and a link to a parent would never end).
 */
export function testFiles(root = PROJECT_ROOT): string[] {
  const found: string[] = [];
  const visit = (folder: string) => {
    for (const entry of readdirSync(join(root, folder), { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory() && entry.name !== 'node_modules') visit(path);
      else if (entry.isFile() && entry.name.endsWith('.test.ts')) found.push(path);
    }
  };
  for (const folder of TEST_FOLDERS) if (existsSync(join(root, folder))) visit(folder);
  return found.sort();
}

/**
 * Runs Node's test runner, passing its output through, and returns its exit
 * code with the totals of its closing summary (`ℹ pass 43` …), which are
 * recorded for `scripts/test-totals.ts` to print per Node version.
 */
async function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ status: number; totals: TestTotals }> {
  const child = spawn(command, args, { cwd: PROJECT_ROOT, env, stdio: ['inherit', 'pipe', 'inherit'] });
  const totals: TestTotals = { skipped_names: [] };
  for await (const line of createInterface({ input: child.stdout })) {
    process.stdout.write(`${line}\n`);
    Object.assign(totals, parseSummaryLine(line));
    const skipped = parseSkipLine(line);
    if (skipped) totals.skipped_names!.push(skipped);
  }
  const status: number | null = child.exitCode ?? (await new Promise((resolve) => child.once('exit', resolve)));
  return { status: status ?? 1, totals };
}

async function main(): Promise<void> {
  const tier = process.argv[2] as Tier;
  if (!TIERS.includes(tier)) {
    process.stderr.write(`usage: tsx scripts/run-tests.ts ${TIERS.join(' | ')} [path prefix …]\n`);
    process.exit(2);
  }
  const prefixes = process.argv.slice(3);
  const files = testFiles().filter(
    (file) => tierOf(file) === tier && (prefixes.length === 0 || prefixes.some((prefix) => file.startsWith(prefix))),
  );
  // A filter that matches nothing would pass without testing anything.
  if (files.length === 0) {
    process.stderr.write(`run-tests: no ${tier} test file under ${prefixes.join(', ')}\n`);
    process.exit(2);
  }
  // The system tier's files start slowest first (run-test-files.ts); `node --test` would sort them by name.
  const nodeTest = (store: StoreName | null) =>
    tier === 'system'
      ? ['--import', 'tsx', join('scripts', 'run-test-files.ts'), `${tier} on ${store}`, String(concurrency())]
      : ['--import', 'tsx', '--test', '--test-reporter=spec', ...testOrder(tier), `--test-concurrency=${concurrency()}`];
  const { env, cleanUp } = testEnvironment();
  process.once('exit', cleanUp);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
  if (tier !== 'unit') {
    // Once per run, what npm start's prestart does: the tests that run the
    // compiled service, admin or CLI, or read the built /docs page, see the
    // sources as they are. It builds only when a source changed since the last
    // build (an up-to-date build still took 7 s, paid again by each tier).
    process.stdout.write(`\n== building when a source changed, for the ${tier} tests\n`);
    const built = await run(process.execPath, [join(PROJECT_ROOT, 'scripts', 'build-in-development.mjs')]);
    if (built.status !== 0) process.exit(built.status);
  }
  if (tier === 'unit') {
    const { status, totals } = await run(process.execPath, [...nodeTest(null), ...files], env);
    recordTotals({ tier, store: null, ...totals });
    process.exit(status);
  }
  for (const store of ['sqlite', 'postgres'] as const) {
    const onStore = files.filter((file) => storesOf(file).includes(store));
    process.stdout.write(`\n== ${tier} tests on ${store === 'sqlite' ? 'SQLite' : 'PostgreSQL'}: ${onStore.length} files\n`);
    // node --test given no file runs every test file it finds: a store with none here is skipped.
    if (onStore.length === 0) continue;
    const { status, totals } = await (store === 'sqlite'
      ? run(process.execPath, [...nodeTest(store), ...onStore], env)
      : run(
          process.execPath,
          [
            '--import',
            'tsx',
            relative(PROJECT_ROOT, join(PROJECT_ROOT, 'scripts', 'with-postgres.ts')),
            process.execPath,
            ...nodeTest(store),
            ...onStore,
          ],
          env,
        ));
    recordTotals({ tier, store, ...totals });
    if (status !== 0) process.exit(status);
  }
}

/** Where a machine keeps files in memory: Linux's tmpfs. */
const MEMORY_DIRECTORY = '/dev/shm';

/**
 * What the tests' processes, and every process they start, get besides this one's environment:
 * - Their temporary files (`os.tmpdir()`: the test databases, PostgreSQL's throwaway cluster,
 *   the gate's and the production install's copies) in a directory of this run's own in memory
 *   where the machine has one, removed when the run ends. The tests ask nothing of the disk
 *   itself (the durability test kills the process, which a disk's cache survives; the disk-full
 *   tests mount a tmpfs of their own), and PostgreSQL's cluster already runs without fsync:
 *   on CI's disk SQLite's fsyncs and the installs' writes took a tenth of the integration tier.
 * - Node's compile cache (`NODE_COMPILE_CACHE`), so that the hundreds of processes the tiers
 *   start (a test file, the service, the CLI) compile the project's modules once, not each time.
 *   Set before the run, either is left as it is.
 */
export function testEnvironment(
  current: NodeJS.ProcessEnv = process.env,
  memory = MEMORY_DIRECTORY,
): { env: NodeJS.ProcessEnv; cleanUp: () => void } {
  const env: NodeJS.ProcessEnv = { ...current };
  let made: string | undefined;
  if (!current.TMPDIR && isWritableDirectory(memory)) {
    env.TMPDIR = made = mkdtempSync(join(memory, 'workspace-tests-'));
    // As /tmp is: other users reach their own directories in it (PostgreSQL's cluster runs as `postgres` under root).
    chmodSync(made, 0o1777);
  }
  env.NODE_COMPILE_CACHE ??= join(homedir(), '.cache', 'workspace-user-api', 'compile-cache');
  return { env, cleanUp: () => made && rmSync(made, { recursive: true, force: true }) };
}

function isWritableDirectory(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * How many test files run at once. Node's default is one fewer than the cores, one on the
 * two-core machines CI runs on, where an integration or system file spends much of its time
 * waiting: on SQLite's fsyncs, PostgreSQL, and the processes it starts (npm, Prism, the
 * service, Chromium), and a unit file most of its time starting (a process of its own, its
 * modules compiled). Every file works on databases, ports and directories of its own, and no
 * test judges a timing by the clock, so two run side by side (the integration tier 128 s →
 * 88 s on SQLite, the system tier 410 s → 272 s, the unit tier 28 s → 18 s). Within a file,
 * the tests keep their order. TEST_CONCURRENCY overrides it.
 */
function concurrency(): number {
  const asked = Number(process.env.TEST_CONCURRENCY);
  return asked > 0 ? asked : 2;
}

/** Node's flags for a random order of the tier's tests, announcing the seed; none where the order is the story, or Node cannot. */
function testOrder(tier: Tier): string[] {
  if (tier === 'system') return [];
  if (!process.allowedNodeEnvironmentFlags.has('--test-randomize')) {
    process.stdout.write(`\n== ${tier} tests in their written order: Node ${process.versions.node} cannot randomise it\n`);
    return [];
  }
  const seed = Number(process.env.TEST_SEED) || randomInt(1, 2 ** 31 - 1);
  process.stdout.write(`\n== ${tier} tests in a random order, seed ${seed} (TEST_SEED=${seed} repeats it)\n`);
  return ['--test-randomize', `--test-random-seed=${seed}`];
}

if (process.argv[1] && relative(process.argv[1], join(PROJECT_ROOT, 'scripts', 'run-tests.ts')) === '') await main();
