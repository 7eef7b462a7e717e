/**
 * The lease that tells `admin restore` whether anything has a SQLite
 * database open (lease.ts): shared by every opener, exclusive for a restore,
 * and dropped by the operating system when its holder dies, kill -9 too.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../../../lib/project-root.js';
import { DatabaseInUseError, holdSharedLease, leaseHolders, takeExclusiveLease } from './lease.js';

describe('the SQLite database lease', () => {
  let directory: string;
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'workspace-lease-'));
  });
  after(() => rm(directory, { recursive: true, force: true }));

  it('is shared by every opener, and taken alone only when nobody holds it', () => {
    const database = join(directory, 'shared.db');
    const service = holdSharedLease(database, 0);
    const command = holdSharedLease(database, 0);
    assert.throws(() => takeExclusiveLease(database), DatabaseInUseError);
    service.release();
    assert.throws(() => takeExclusiveLease(database), /is open .*stop it first/);
    command.release();
    const restore = takeExclusiveLease(database);
    assert.throws(() => holdSharedLease(database, 0), /a restore of .*shared\.db is under way/);
    restore.release();
    holdSharedLease(database, 0).release();
  });

  it('names the process that holds it, and is free once that process is killed', async () => {
    const database = join(directory, 'killed.db');
    const holder = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `import { holdSharedLease } from './server/store/sqlite/lease.ts';
         holdSharedLease(${JSON.stringify(database)}, 0);
         process.stdout.write('held\\n');
         setInterval(() => {}, 60_000);`,
      ],
      { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const [first] = (await once(holder.stdout, 'data')) as [Buffer];
      assert.equal(first.toString(), 'held\n');
      if (process.platform === 'linux') assert.ok(leaseHolders(database).some((found) => found.pid === holder.pid));
      assert.throws(
        () => takeExclusiveLease(database),
        process.platform === 'linux' ? new RegExp(`is open in process ${holder.pid} \\(`) : DatabaseInUseError,
      );
      holder.kill('SIGKILL');
      await once(holder, 'exit');
      takeExclusiveLease(database).release();
    } finally {
      holder.kill('SIGKILL');
    }
  });
});
