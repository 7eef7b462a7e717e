/**
 * `admin backup` and `admin restore` on PostgreSQL (store/postgres/dump.ts):
 * pg_dump and pg_restore behind the same guarantees as on SQLite. A restore is
 * refused while any instance has the database open (store/postgres/lease.ts),
 * needs --force to replace rows, and an instance cannot start while one runs.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ADMIN_COMMAND } from '../../lib/testing/commands.js';
import { assertFeedGoesOnAfterRestore } from '../testing/feed-after-restore.js';
import { runScript } from '../../lib/testing/run-script.js';
import { redactUrl } from '../store/open-store.js';
import { takeExclusivePostgresLease } from '../store/postgres/lease.js';
import { createTestDatabase, type TestDatabase } from '../testing/database.js';
import { startTestService } from '../testing/service.js';

describe('admin backup and restore (PostgreSQL)', () => {
  let directory: string;
  let database: TestDatabase;
  const admin = (...args: string[]) => runScript(ADMIN_COMMAND, args, { DATABASE_URL: database.url });

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'workspace-pg-backup-'));
    database = await createTestDatabase();
  });
  after(async () => {
    await database.drop();
    await rm(directory, { recursive: true, force: true });
  });

  it('backs up a live database, refuses to restore under a running instance, and restores a stopped one with --force', async () => {
    const service = await startTestService({ databaseUrl: database.url });
    let stopped = false;
    try {
      const before = await service.callAsAdmin('create_user', { target_user: { username: 'before-backup@example.com' } });
      assert.equal(before.status, 200);
      const backup = join(directory, 'workspace.dump');
      const made = await admin('backup', backup);
      assert.equal(made.code, 0, made.stderr);
      assert.equal((await stat(backup)).mode & 0o777, 0o600, 'readable by its owner alone');
      const after = await service.callAsAdmin('create_user', { target_user: { username: 'after-backup@example.com' } });
      // A follower of the feed past the backup's last event.
      const followed = (await service.callAsAdmin('get_events', { limit: 1000 })).body.next_cursor;

      const refused = await admin('restore', backup, '--force');
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /cannot restore: .* is open in a process connected from .* since .*stop every instance first/);
      assert.equal((await service.callAsAdmin('get_user', { target_user: { user_id: after.body.user.user_id } })).status, 200);

      await service.close();
      stopped = true;
      const unforced = await admin('restore', backup);
      assert.equal(unforced.code, 1);
      assert.match(unforced.stderr, /is not empty \(it holds 2 users, .*\): restoring replaces all of it .*--force/);

      const forced = await admin('restore', backup, '--force');
      assert.equal(forced.code, 0, forced.stderr);
      const restored = await startTestService({ databaseUrl: database.url });
      try {
        const get = (user_id: string) => restored.callAsAdmin('get_user', { target_user: { user_id } });
        assert.equal((await get(before.body.user.user_id)).status, 200, 'what the backup held is back');
        assert.equal((await get(after.body.user.user_id)).status, 404, 'what came after it is gone, as asked');
        // The follower that saw it is told to read afresh, and the order goes on after what it saw.
        await assertFeedGoesOnAfterRestore(restored, followed);
      } finally {
        await restored.close();
      }
    } finally {
      if (!stopped) await service.close();
    }
  });

  it('keeps an instance from starting while a restore holds the database, and refuses a file that is not a backup', async () => {
    const restoring = await takeExclusivePostgresLease(database.url, redactUrl(database.url));
    try {
      await assert.rejects(startTestService({ databaseUrl: database.url, databaseTimeouts: { lockMs: 200 } }), (error: Error) =>
        /a restore of .* is under way/.test(`${error.message} ${String((error.cause as Error | undefined)?.message)}`),
      );
    } finally {
      restoring.release();
    }
    const notes = join(directory, 'notes.txt');
    await writeFile(notes, 'not an archive');
    const run = await admin('restore', notes, '--force');
    assert.equal(run.code, 1);
    assert.match(run.stderr, /notes\.txt is not a backup to restore/);
  });
});
