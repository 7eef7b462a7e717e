/**
 * What the operator sees when the disk fails the SQLite store: the real
 * cause, in one line at start, and in the log of a failed request, with no
 * acknowledged write lost.
 *
 * A full disk is a small tmpfs, and a read-only directory a read-only tmpfs
 * (file modes do not stop root): both need mount(8) as root. Without root these
 * tests are skipped, loudly, and under CI=true they fail instead.
 */
import { kasmMembers } from './testing/error-bodies.js';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SqliteLibrary from 'better-sqlite3';
import { assertPresent, needs, TOOLS } from '../lib/testing/external-tools.js';
import { runScript } from '../lib/testing/run-script.js';
import { type Answer, startTestService } from './testing/service.js';
import { SERVICE_COMMAND } from '../lib/testing/commands.js';

const root = TOOLS.rootForMount();
const needsMount = needs(root, 'the disk-fault tests');

/** A tmpfs at a new directory, unmounted (and removed) by the returned function. */
async function tmpfs(options: string): Promise<{ path: string; remove(): Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'workspace-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', path]);
  return {
    path,
    async remove() {
      execFileSync('umount', [path]);
      await rm(path, { recursive: true, force: true });
    },
  };
}

/** Starts the service on this database and expects it to refuse, with one line on stderr. */
async function failedStart(databaseUrl: string): Promise<string> {
  const run = await runScript(SERVICE_COMMAND, [], { PORT: '0', DATABASE_URL: databaseUrl });
  assert.equal(run.code, 1, run.stdout + run.stderr);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `more than one line:\n${run.stderr}`);
  assert.doesNotMatch(run.stderr, /\n\s+at /);
  return lines[0]!;
}

describe('disk faults, as the operator sees them', () => {
  let directory: string;
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'workspace-faults-'));
  });
  after(() => rm(directory, { recursive: true, force: true }));

  it(
    'a full disk: 503 storage_full with Retry-After, SQLITE_FULL in the log (not a failed rollback), /readyz not ready, and every acknowledged write kept',
    needsMount,
    async (t) => {
      assertPresent(root);
      // Room for the migrations (a write-ahead log of about 1 MB, copied at the end into a file of
      // about 240 KB, open-store.ts), and little more.
      const disk = await tmpfs('size=2m');
      const databaseUrl = `sqlite:${join(disk.path, 'workspace.db')}`;
      const service = await startTestService({ databaseUrl }).catch(async (error: unknown) => {
        await disk.remove();
        throw error;
      });
      // Closed once, by the test or, when an assertion fails first, here: an open service would keep the run waiting.
      let closing: Promise<void> | undefined;
      const close = () => (closing ??= service.close());
      t.after(async () => {
        await close();
        await disk.remove();
      });
      const acknowledged: { user_id: string; organization: string }[] = [];
      let failed: Answer | undefined;
      for (let i = 0; i < 500 && !failed; i++) {
        const answer = await service.callAsAdmin('create_user', {
          target_user: { username: `full${i}@example.com`, first_name: 'x'.repeat(255), last_name: 'y'.repeat(255) },
        });
        if (answer.status === 200) acknowledged.push({ user_id: answer.body.user.user_id, organization: '' });
        else failed = answer;
      }
      assert.ok(failed, 'the disk never filled');
      assert.equal(failed.status, 503);
      assert.deepEqual(kasmMembers(failed.body), { error_message: 'The database is out of space; retry in 30 s', code: 'storage_full' });
      assert.equal(failed.headers.get('retry-after'), '30');
      const readiness = await service.request('/readyz');
      assert.deepEqual([readiness.status, readiness.body.error_message], [503, 'Not ready: the database is out of space']);
      // Updates commit in groups: a group that fails must fail alone, with the same cause.
      const updates = await Promise.all(
        acknowledged.map((user) =>
          service.callAsAdmin('update_user', { target_user: { user_id: user.user_id, organization: 'z'.repeat(255) } }),
        ),
      );
      assert.ok(updates.every((answer) => answer.status === 200 || answer.status === 503));
      for (const [index, answer] of updates.entries()) if (answer.status === 200) acknowledged[index]!.organization = 'z'.repeat(255);

      const errors = service
        .logs()
        .split('\n')
        .filter((line) => line.includes('"database unavailable"'));
      assert.ok(errors.length > 0);
      assert.doesNotMatch(service.logs(), /"request failed"/);
      for (const line of errors) {
        assert.match(line, /"fault":"full"/);
        assert.match(line, /SQLITE_FULL/);
        assert.doesNotMatch(line, /cannot rollback/);
      }
      assert.equal((await service.request('/healthz')).status, 200, 'reads still work');
      await close();

      const database = new SqliteLibrary(join(disk.path, 'workspace.db'), { readonly: true });
      try {
        assert.equal(database.pragma('integrity_check', { simple: true }), 'ok');
        for (const user of acknowledged) {
          const row = database.prepare('select organization from users where user_id = ?').get(user.user_id) as
            { organization: string } | undefined;
          assert.deepEqual(row, { organization: user.organization }, `acknowledged user ${user.user_id}`);
        }
      } finally {
        database.close();
      }
    },
  );

  it('a read-only directory: the start fails with one line naming the cause', needsMount, async (t) => {
    assertPresent(root);
    const disk = await tmpfs('ro,size=64k');
    t.after(() => disk.remove());
    assert.match(
      await failedStart(`sqlite:${join(disk.path, 'workspace.db')}`),
      /^workspace-user-api: cannot start: cannot open sqlite:.*workspace\.db: .*\((SQLITE_CANTOPEN|SQLITE_READONLY)\)$/,
    );
    assert.match(
      await failedStart(`sqlite:${join(disk.path, 'data', 'workspace.db')}`),
      /^workspace-user-api: cannot start: cannot open sqlite:.*: .*EROFS/,
    );
  });

  it('a write-ahead log that cannot be written: the start fails with one line naming the cause', async () => {
    const path = join(directory, 'wal', 'workspace.db');
    await mkdir(join(directory, 'wal'));
    // The log's name is taken by a directory, which no one, root included, can open as a file.
    await mkdir(`${path}-wal`);
    assert.match(
      await failedStart(`sqlite:${path}`),
      /^workspace-user-api: cannot start: cannot open sqlite:.*workspace\.db: .*\(SQLITE_(CANTOPEN|IOERR)\w*\)$/,
    );
  });
});
