/**
 * `npm run cli` in a built checkout: the check (build-in-development.mjs) finds
 * nothing changed and skips the build, then runs the CLI in its own process with
 * the arguments given, so a call costs what the CLI itself costs. The figure is in
 * the bench; here only a loose bound, the proof that no build ran, and the CLI's
 * arguments and exit code passed through.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { stampOf } from './build-freshness.mjs';

function npmRunCli(...cliArgs: string[]) {
  const npm = process.env.npm_execpath;
  const args = ['run', 'cli', '--silent', '--', ...cliArgs];
  return npm
    ? spawnSync(process.execPath, [npm, ...args], { cwd: PROJECT_ROOT, encoding: 'utf8' })
    : spawnSync('npm', args, { cwd: PROJECT_ROOT, encoding: 'utf8' });
}

describe('npm run cli in a built checkout', () => {
  it('answers without building, well within a second', () => {
    // scripts/run-tests.ts built before this tier: the stamp is newer than every source.
    const stamped = statSync(stampOf(PROJECT_ROOT)).mtimeMs;
    const started = performance.now();
    const run = npmRunCli('--version');
    const took = performance.now() - started;
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^\d+\.\d+\.\d+\n$/);
    assert.equal(statSync(stampOf(PROJECT_ROOT)).mtimeMs, stamped, 'no build ran');
    // Loose on a shared machine: an incremental build that finds nothing to do took over 3 s.
    assert.ok(took < 2_000, `npm run cli took ${Math.round(took)} ms`);
  });

  it("gives the CLI the arguments after the command's name, and exits with its code", () => {
    const run = npmRunCli('--url', 'http://127.0.0.1:9', 'nosuch');
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, /unknown command 'nosuch'/);
  });
});
