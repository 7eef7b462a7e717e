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
import { LARGE_COMMIT_ROWS, LargeCommits, MOST_LOG_PAGES } from './large-commits.js';
import { AUTOMATIC_CHECKPOINT_PAGES, openSqliteConnection } from './open-connection.js';
import { TEST_SETUP } from '../../testing/test-setup.js';

async function until(condition: () => boolean, what: string, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`not within ${withinMs} ms: ${what}`);
    await delay(5);
  }
}

/**
 * Commits `rows` rows of `pagesEach` pages (4,000 random bytes a page) in one transaction, told
 * to `commits` as the store's driver tells it.
 */
async function commitRows(connection: BetterSqlite3.Database, commits: LargeCommits, rows: number, pagesEach = 1): Promise<void> {
  connection.exec('create table if not exists filler (bytes blob)');
  const insert = connection.prepare(`insert into filler values (randomblob(${4_000 * pagesEach}))`);
  await commits.beforeBegin();
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

  it('leaves a commit under the threshold to SQLite, which copies it in the commit once the log passes AUTOMATIC_CHECKPOINT_PAGES', async () => {
    const path = join(directory, 'small.db');
    const writer = openSqliteConnection(path);
    const commits = new LargeCommits(path, writer, DEFAULT_DATABASE_TIMEOUTS.lockMs);
    try {
      const before = statSync(path).size;
      // Fewer rows than a large commit's, more pages than SQLite's threshold.
      const pagesEach = Math.ceil((AUTOMATIC_CHECKPOINT_PAGES + 200) / (LARGE_COMMIT_ROWS - 1));
      await commitRows(writer, commits, LARGE_COMMIT_ROWS - 1, pagesEach);
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
      await commitRows(writer, commits, LARGE_COMMIT_ROWS);
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

  it('has a transaction begin once the log is copied when large commits grew it past MOST_LOG_PAGES, so that it starts afresh', async () => {
    const path = join(directory, 'growing.db');
    const writer = openSqliteConnection(path);
    const commits = new LargeCommits(path, writer, DEFAULT_DATABASE_TIMEOUTS.lockMs);
    // A reader on an early snapshot: as for large commits each beginning while the thread copies
    // the one before, the log cannot start afresh, and grows.
    const reader = openSqliteConnection(path);
    try {
      await commitRows(writer, commits, 1);
      reader.exec('begin');
      reader.prepare('select count(*) from filler').get();
      for (let pages = 0; pages < MOST_LOG_PAGES; pages += LARGE_COMMIT_ROWS) {
        await commitRows(writer, commits, LARGE_COMMIT_ROWS);
        await until(() => !commits.copying, "the thread's copy");
      }
      // One more, whose copy the next transaction finds under way.
      await commitRows(writer, commits, LARGE_COMMIT_ROWS);
      reader.exec('commit');
      const log = statSync(`${path}-wal`).size;
      assert.ok(log > MOST_LOG_PAGES * 4096, `the log grew to ${log} bytes`);
      assert.equal(commits.copying, true);
      await commits.beforeBegin();
      assert.equal(commits.copying, false, "the next transaction begins once the thread's copy is done");
      await commitRows(writer, commits, LARGE_COMMIT_ROWS);
      assert.equal(statSync(`${path}-wal`).size, log, 'and writes at the start of the log, which does not grow');
      assert.equal(commits.copying, true, 'its pages are the thread’s to copy');
      await commits.beforeBegin();
      assert.equal(commits.copying, true, 'on a log started afresh, the next transaction does not wait');
      await until(() => !commits.copying, "the thread's copy");
    } finally {
      reader.close();
      await commits.stop();
      writer.close();
    }
  });

  it('gives the checkpoints back to the writer, and says why, when the thread fails', async () => {
    const writer = openSqliteConnection(join(directory, 'writer.db'));
    // A "database" the thread cannot open: a directory.
    const unopenable = join(directory, 'unopenable.db');
    mkdirSync(unopenable);
    const warnings: string[] = [];
    const commits = new LargeCommits(unopenable, writer, DEFAULT_DATABASE_TIMEOUTS.lockMs, (error) => warnings.push(error.message));
    try {
      await commitRows(writer, commits, LARGE_COMMIT_ROWS);
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
