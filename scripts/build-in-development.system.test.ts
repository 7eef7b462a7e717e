/**
 * `npm run cli` in a built checkout: the check before it (build-in-development.mjs)
 * finds nothing changed and skips the build, so a call costs what the CLI itself
 * costs. The figure is in the bench; here only a loose bound, and the proof that
 * no build ran.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { stampOf } from './build-freshness.mjs';

describe('npm run cli in a built checkout', () => {
  it('answers without building, well within a second', () => {
    // scripts/run-tests.ts built before this tier: the stamp is newer than every source.
    const stamped = statSync(stampOf(PROJECT_ROOT)).mtimeMs;
    const npm = process.env.npm_execpath;
    const args = ['run', 'cli', '--silent', '--', '--version'];
    const started = performance.now();
    const run = npm
      ? spawnSync(process.execPath, [npm, ...args], { cwd: PROJECT_ROOT, encoding: 'utf8' })
      : spawnSync('npm', args, { cwd: PROJECT_ROOT, encoding: 'utf8' });
    const took = performance.now() - started;
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^\d+\.\d+\.\d+\n$/);
    assert.equal(statSync(stampOf(PROJECT_ROOT)).mtimeMs, stamped, 'no build ran');
    // Loose on a shared machine: an incremental build that finds nothing to do took over 3 s.
    assert.ok(took < 2_000, `npm run cli took ${Math.round(took)} ms`);
  });
});
