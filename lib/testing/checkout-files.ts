/**
 * The project's files as a clone with the uncommitted work has them (what git
 * tracks or would track): what the Node matrix and the production-install
 * test copy, so that they test the work as it is.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT } from '../project-root.js';

export function checkoutFiles(): string[] {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed (a copy of the project is made from a git checkout):\n${listed.stderr}`);
  return listed.stdout.split('\0').filter((file) => file !== '' && existsSync(join(PROJECT_ROOT, file)));
}
