import assert from 'node:assert/strict';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { randomBytes } from 'node:crypto';
import type BetterSqlite3 from 'better-sqlite3';
import { DEFAULT_DATABASE_TIMEOUTS } from '../timeouts.js';
import { openStore } from '../open-store.js';
import { AUTOMATIC_CHECKPOINT_PAGES, LARGE_COMMIT_ROWS, LargeCommits } from './large-commits.js';
import { openSqliteConnection } from './open-connection.js';
import { TEST_SETUP } from '../../testing/test-setup.js';

async function until(condition: () => boolean, what: string, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`not within ${withinMs} ms: ${what}`);
    await delay(5);
  }
}

/** Commits `rows` rows of a page each (4,000 random bytes) in one transaction, told to `commits` as the store's driver tells it. */
function commitRows(connection: BetterSqlite3.Database, commits: LargeCommits, rows: number): void {
  connection.exec('create table if not exists filler (bytes blob)');
  const insert = connection.prepare('insert into filler values (randomblob(4000))');
  connection.exec('begin');
  commits.began();
  for (let row = 0; row < rows; row++) insert.run();
  const large = commits.beforeCommit();
  connection.exec('commit');
  commits.afterCommit(large);
}

const automaticCheckpoint = (connection: BetterSqlite3.Database) => connection.pragma('wal_autocheckpoint', { simple: true });

describe('SQLite: a large commit copied into the database file off the event loop', () => {
  let directory: string;
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'workspace-large-commits-'));
  });
  after(() => rm(directory, { recursive: true, force: true }));

  it('leaves a commit under the threshold to SQLite, which copies it in the commit once the log passes 1,000 pages', async () => {
    const path = join(directory, 'small.db');
    const writer = openSqliteConnection(path);
    const commits = new LargeCommits(path, writer, DEFAULT_DATABASE_TIMEOUTS.lockMs);
    try {
      const before = statSync(path).size;
      commitRows(writer, commits, AUTOMATIC_CHECKPOINT_PAGES + 200);
      assert.equal(commits.copying, false, 'no thread asked');
      assert.equal(automaticCheckpoint(writer), AUTOMATIC_CHECKPOINT_PAGES);
      assert.ok(statSync(path).size > before + AUTOMATIC_CHECKPOINT_PAGES * 4096, 'the commit copied its pages itself');
    } finally {
      await commits.stop();
      writer.close();
    }
  });

  it('commits a large transaction without copying, has its thread copy it, then checkpoints as SQLite does again', async () => {
    const path = join(directory, 'large.db');
    const writer = openSqliteConnection(path);
    const commits = new LargeCommits(path, writer, DEFAULT_DATABASE_TIMEOUTS.lockMs);
    try {
      writer.exec('create table filler (bytes blob)');
      const before = statSync(path).size;
      commitRows(writer, commits, LARGE_COMMIT_ROWS);
      // The thread (just started) has not answered yet: whatever reached the file, the commit copied.
      assert.equal(statSync(path).size, before, `the commit of ${LARGE_COMMIT_ROWS} pages left the database file as it was`);
      assert.equal(commits.copying, true);
      assert.equal(automaticCheckpoint(writer), 0, 'no automatic checkpoint while the thread copies');
      await until(() => !commits.copying, 'the thread copies the pages');
      assert.ok(statSync(path).size > before + LARGE_COMMIT_ROWS * 4096, 'the pages are in the database file');
      assert.equal(automaticCheckpoint(writer), AUTOMATIC_CHECKPOINT_PAGES, "SQLite's own threshold again");
    } finally {
      await commits.stop();
    }
    writer.close();
    assert.equal(existsSync(`${path}-wal`), false, 'with the thread stopped first, the last close checkpointed the log and removed it');
  });

  it('gives the checkpoints back to the writer, and says why, when the thread fails', async () => {
    const writer = openSqliteConnection(join(directory, 'writer.db'));
    // A "database" the thread cannot open: a directory.
    const unopenable = join(directory, 'unopenable.db');
    mkdirSync(unopenable);
    const warnings: string[] = [];
    const commits = new LargeCommits(unopenable, writer, DEFAULT_DATABASE_TIMEOUTS.lockMs, (error) => warnings.push(error.message));
    try {
      commitRows(writer, commits, LARGE_COMMIT_ROWS);
      await until(() => warnings.length > 0, 'the failure is noticed');
      assert.equal(automaticCheckpoint(writer), AUTOMATIC_CHECKPOINT_PAGES, "SQLite's own threshold again");
      assert.equal(commits.copying, false);
      assert.match(
        warnings[0] ?? '',
        /^SQLite's checkpoints after large commits are taken on the event loop again: .*unable to open database file/,
      );
      assert.equal(commits.beforeCommit(), false, 'a later large commit is copied by the writer');
    } finally {
      await commits.stop();
      writer.close();
    }
  });

  it("is the store's: a group deleted with its 3,000 members leaves the copy to the thread, and the store's close stops it", async () => {
    const path = join(directory, 'store.db');
    await (await openStore(`sqlite:${path}`)).close();
    const groupId = randomBytes(16).toString('hex');
    const raw = openSqliteConnection(path);
    raw
      .prepare(
        "insert into groups (group_id, name, is_system, created, version, description, priority) values (?, 'large', 0, ?, 1, '', 100)",
      )
      .run(groupId, new Date().toISOString());
    // Rows of nearly a page each, so that the deletion writes more pages than SQLite copies in a commit.
    const user = raw.prepare('insert into users (user_id, username, first_name, created) values (?, ?, ?, ?)');
    const member = raw.prepare('insert into user_groups (user_id, group_id) values (?, ?)');
    raw.transaction(() => {
      for (let index = 0; index < 3_000; index++) {
        const userId = randomBytes(16).toString('hex');
        user.run(userId, `member${index}@example.com`, 'x'.repeat(3_000), new Date().toISOString());
        member.run(userId, groupId);
      }
    })();
    raw.close();

    const store = await openStore(`sqlite:${path}`);
    try {
      const before = statSync(path).mtimeMs;
      assert.equal(await store.groups.delete(groupId, TEST_SETUP), 'deleted');
      assert.equal(statSync(path).mtimeMs, before, 'the commit (6,000 rows: each member moved and taken out) copied nothing');
      await until(() => statSync(path).mtimeMs > before, "the thread copies the deletion's pages");
    } finally {
      await store.close();
    }
    assert.equal(existsSync(`${path}-wal`), false, "the store's close stopped the thread, checkpointed the log and removed it");
  });
});
