/**
 * `admin backup` of a live SQLite database while the service takes writes,
 * and `admin restore` of it into a fresh database: every user whose creation
 * was acknowledged before the backup began comes back, row for row, and
 * nothing comes back that the service never stored. Restore refuses what is
 * not a backup, and leaves the database as it was.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { runScript, startScript } from '../../lib/testing/run-script.js';
import { startTestService, type TestService } from '../testing/service.js';
import { ADMIN_COMMAND } from '../../lib/testing/commands.js';
import { assertFeedGoesOnAfterRestore } from '../testing/feed-after-restore.js';

type Row = Record<string, unknown>;

function usersIn(file: string): Map<string, Row> {
  const database = new BetterSqlite3(file, { readonly: true });
  try {
    return new Map((database.prepare('select * from users').all() as Row[]).map((row) => [row.user_id as string, row]));
  } finally {
    database.close();
  }
}

describe('admin backup and restore (SQLite)', () => {
  let directory: string;
  let service: TestService;
  const live = () => join(directory, 'live.db');
  const admin = (databaseFile: string, ...args: string[]) => runScript(ADMIN_COMMAND, args, { DATABASE_URL: `sqlite:${databaseFile}` });

  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'workspace-backup-'));
    service = await startTestService({ databaseUrl: `sqlite:${live()}` });
  });
  after(async () => {
    await service.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('copies a database that is taking writes, consistently, and restores it into a fresh one', async () => {
    // A reader holds a snapshot from before the load, as a long report would: no checkpoint
    // can then move the load's writes into the database file, and they stay in the WAL,
    // where a copy of the file alone would miss them.
    const report = new BetterSqlite3(live(), { readonly: true });
    report.prepare('begin').run();
    report.prepare('select count(*) from users').get();

    const acknowledged: string[] = [];
    let writing = true;
    const writer = async (lane: number) => {
      for (let n = 0; writing; n++) {
        const answer = await service.callAsAdmin('create_user', { target_user: { username: `load-${lane}-${n}@example.com` } });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        acknowledged.push(answer.body.user.user_id);
      }
    };
    const load = Promise.all([0, 1, 2, 3].map(writer));
    while (acknowledged.length < 40) await new Promise((resolve) => setImmediate(resolve));

    const beforeBackup = [...acknowledged];
    const backup = await admin(live(), 'backup', join(directory, 'backup.db'));
    const duringBackup = acknowledged.length - beforeBackup.length;
    writing = false;
    await load;
    report.prepare('commit').run();
    report.close();
    assert.equal(backup.code, 0, backup.stderr);
    assert.match(backup.stdout, /backed up to .*backup\.db/);

    const restore = await admin(join(directory, 'restored.db'), 'restore', join(directory, 'backup.db'));
    assert.equal(restore.code, 0, restore.stderr);
    const restored = usersIn(join(directory, 'restored.db'));
    const stored = usersIn(live());
    for (const id of beforeBackup) assert.deepEqual(restored.get(id), stored.get(id), `user ${id}, acknowledged before the backup`);
    for (const [id, row] of restored) assert.deepEqual(row, stored.get(id), `user ${id} is in the backup as the service stored it`);
    assert.ok(stored.size > restored.size || duringBackup === 0, 'writes went on after the backup began');

    // The restored database is one the service opens and serves.
    const served = await startTestService({ databaseUrl: `sqlite:${join(directory, 'restored.db')}` });
    try {
      const found = await served.callAsAdmin('get_user', { target_user: { user_id: beforeBackup[0]! } });
      assert.equal(found.status, 200);
    } finally {
      await served.close();
    }
  });

  it('never writes a backup over an existing file', async () => {
    const existing = join(directory, 'existing.db');
    await writeFile(existing, 'kept');
    const run = await admin(live(), 'backup', existing);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /exists: a backup never overwrites a file/);
    assert.equal(await readFile(existing, 'utf8'), 'kept');
  });

  it('refuses to restore what is not a backup, and leaves the database as it was', async () => {
    const target = join(directory, 'kept.db');
    const backup = join(directory, 'to-restore.db');
    assert.equal((await admin(live(), 'backup', backup)).code, 0);
    assert.equal((await admin(target, 'restore', backup)).code, 0);
    const before = usersIn(target);

    await writeFile(join(directory, 'notes.txt'), 'not a database at all, but long enough to look like a file\n'.repeat(100));
    const foreign = new BetterSqlite3(join(directory, 'foreign.db'));
    foreign.exec('create table songs (title text)');
    foreign.close();
    const newer = join(directory, 'newer.db');
    assert.equal((await admin(live(), 'backup', newer)).code, 0);
    const future = new BetterSqlite3(newer);
    future.prepare("insert into kysely_migration (name, timestamp) values ('9999_from_the_future', '2030-01-01')").run();
    future.close();

    for (const [file, reason] of [
      ['notes.txt', /file is not a database/],
      ['foreign.db', /not a workspace-user-api database/],
      ['newer.db', /a newer version made it/],
      ['missing.db', /there is no file/],
    ] as const) {
      const run = await admin(target, 'restore', join(directory, file));
      assert.equal(run.code, 1, file);
      assert.match(run.stderr, reason, file);
      assert.deepEqual(usersIn(target), before, `${file}: the database is as it was`);
    }
  });

  it('refuses to restore over the database a running service has open, and every write since the backup stays', async () => {
    const backup = join(directory, 'before-alice.db');
    assert.equal((await admin(live(), 'backup', backup)).code, 0);
    const alice = await service.callAsAdmin('create_user', { target_user: { username: 'alice-after-backup@example.com' } });
    assert.equal(alice.status, 200);

    for (const args of [[], ['--force']]) {
      const run = await admin(live(), 'restore', backup, ...args);
      assert.equal(run.code, 1, `restore ${args.join(' ')}`);
      assert.match(run.stderr, new RegExp(`cannot restore: .*live\\.db is open in process ${process.pid} \\(.*stop it first`));
    }
    const found = await service.callAsAdmin('get_user', { target_user: { user_id: alice.body.user.user_id } });
    assert.equal(found.status, 200, 'the user made after the backup is still there');
    const later = await service.callAsAdmin('create_user', { target_user: { username: 'bob-after-refusal@example.com' } });
    assert.equal(later.status, 200, 'and the service goes on writing');
    assert.deepEqual(
      (await readdir(directory)).filter((name) => name.includes('.restoring-')),
      [],
      'a refused restore leaves nothing behind',
    );
  });

  it('restores over a stopped database only with --force, atomically, and leaves no stray files', async () => {
    const stopped = join(directory, 'stopped.db');
    const backup = join(directory, 'for-stopped.db');
    assert.equal((await admin(live(), 'backup', backup)).code, 0);
    const other = await startTestService({ databaseUrl: `sqlite:${stopped}` });
    const made = await other.callAsAdmin('create_user', { target_user: { username: 'only-in-stopped@example.com' } });
    // A follower of the stopped database's feed, up to its last event.
    const followed = (await other.callAsAdmin('get_events', { limit: 1000 })).body.next_cursor;
    await other.close();

    const unforced = await admin(stopped, 'restore', backup);
    assert.equal(unforced.code, 1);
    assert.match(unforced.stderr, /stopped\.db is not empty \(it holds 1 users, .*\): restoring replaces all of it .*--force/);
    assert.ok(usersIn(stopped).has(made.body.user.user_id), 'refused: the database is as it was');

    const forced = await admin(stopped, 'restore', backup, '--force');
    assert.equal(forced.code, 0, forced.stderr);
    assert.deepEqual(usersIn(stopped), usersIn(backup), 'the database is now the backup, row for row');
    const left = await readdir(directory);
    for (const name of left) {
      assert.doesNotMatch(name, /^for-stopped\.db-|\.restoring-/, `${name}: nothing beside the backup, no staging file`);
    }
    assert.ok(
      !left.includes('stopped.db-wal') && !left.includes('stopped.db-shm'),
      'no write-ahead log of the old database is left to replay',
    );

    // The order of events goes on after the replaced database's, and its follower is told to read afresh.
    const restored = await startTestService({ databaseUrl: `sqlite:${stopped}` });
    try {
      await assertFeedGoesOnAfterRestore(restored, followed);
    } finally {
      await restored.close();
    }
  });

  it('writes a backup readable by its owner alone', async () => {
    const file = join(directory, 'private.db');
    assert.equal((await admin(live(), 'backup', file)).code, 0);
    assert.equal((await stat(file)).mode & 0o777, 0o600);
    assert.deepEqual(
      (await readdir(directory)).filter((name) => name.startsWith('private.db')),
      ['private.db'],
      'no -wal, -shm or -lease file beside it',
    );
  });

  it('ends quietly when its reader stops reading (| head -1)', async () => {
    const child = startScript(ADMIN_COMMAND, ['backup', join(directory, 'piped.db')], { DATABASE_URL: `sqlite:${live()}` });
    child.stdout!.destroy();
    let stderr = '';
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    const [code] = (await once(child, 'close')) as [number | null];
    assert.equal(stderr, '', 'no EPIPE stack trace');
    assert.equal(code, 0);
    assert.equal((await stat(join(directory, 'piped.db'))).size > 0, true, 'the backup was written');
  });

  it('on PostgreSQL, says what failed, never the password', async () => {
    const run = await runScript(ADMIN_COMMAND, ['backup', join(directory, 'pg.dump')], {
      DATABASE_URL: 'postgres://user:secret@127.0.0.1:1/workspace',
    });
    assert.equal(run.code, 1);
    assert.match(run.stderr, /pg_dump failed: .*127\.0\.0\.1/);
    assert.doesNotMatch(run.stderr, /secret/);
    await assert.rejects(stat(join(directory, 'pg.dump')), 'no empty backup is left behind');
  });
});
