import assert from 'node:assert/strict';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import type BetterSqlite3 from 'better-sqlite3';
import { DEFAULT_DATABASE_TIMEOUTS } from '../timeouts.js';
import { openStore } from '../open-store.js';
import { BackgroundCheckpoints, CHECKPOINT_BACKSTOP_PAGES, type CheckpointTimings, INLINE_CHECKPOINT_PAGES } from './checkpoints.js';
import { openSqliteConnection } from './open-connection.js';

/** Every 10 ms here: the log's size looked at, the pages waiting looked at, and any copied. */
const QUICK: CheckpointTimings = { walCheckMs: 10, lookEveryMs: 10, atLeastEveryMs: 10, stopWithinMs: 5_000 };

async function until(condition: () => boolean, what: string, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > deadline) assert.fail(`not within ${withinMs} ms: ${what}`);
    await delay(5);
  }
}

/** Commits `pages` pages of new rows (4,000 random bytes each) in one transaction. */
function writePages(connection: BetterSqlite3.Database, pages: number): void {
  connection.exec('create table if not exists filler (bytes blob)');
  const insert = connection.prepare('insert into filler values (randomblob(4000))');
  connection.transaction(() => {
    for (let page = 0; page < pages; page++) insert.run();
  })();
}

const autocheckpoint = (connection: BetterSqlite3.Database) => connection.pragma('wal_autocheckpoint', { simple: true });

describe('SQLite checkpoints off the event loop', () => {
  let directory: string;
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'workspace-checkpoints-'));
  });
  after(() => rm(directory, { recursive: true, force: true }));

  it('leaves them to the writer while the log is small, then takes them to a thread, where a large commit no longer copies', async () => {
    const path = join(directory, 'moving.db');
    const writer = openSqliteConnection(path);
    // The thread looks only once a minute here: whatever reaches the database file meanwhile, the writer copied.
    const checkpoints = new BackgroundCheckpoints(path, writer, DEFAULT_DATABASE_TIMEOUTS.lockMs, { ...QUICK, lookEveryMs: 60_000 });
    try {
      writePages(writer, 100);
      await delay(5 * QUICK.walCheckMs);
      assert.equal(checkpoints.taken, 'by the writer', 'a log of 100 pages stays with the writer');
      assert.equal(autocheckpoint(writer), INLINE_CHECKPOINT_PAGES);

      writePages(writer, INLINE_CHECKPOINT_PAGES + 100);
      await until(() => checkpoints.taken === 'on their thread', 'the thread takes the checkpoints');
      assert.equal(autocheckpoint(writer), CHECKPOINT_BACKSTOP_PAGES, 'the writer copies only past the backstop');

      const before = statSync(path).size;
      writePages(writer, 2 * INLINE_CHECKPOINT_PAGES);
      assert.equal(statSync(path).size, before, 'the commit of 2,000 pages left the database file as it was');
    } finally {
      await checkpoints.stop();
      writer.close();
    }
  });

  it('copies the log into the database file on its thread, and stops before the writer closes, which removes the log', async () => {
    const path = join(directory, 'copied.db');
    const writer = openSqliteConnection(path);
    const checkpoints = new BackgroundCheckpoints(path, writer, DEFAULT_DATABASE_TIMEOUTS.lockMs, QUICK);
    try {
      writePages(writer, INLINE_CHECKPOINT_PAGES + 100);
      await until(() => checkpoints.taken === 'on their thread', 'the thread takes the checkpoints');
      const before = statSync(path).size;
      writePages(writer, 2 * INLINE_CHECKPOINT_PAGES);
      await until(() => statSync(path).size > before + INLINE_CHECKPOINT_PAGES * 4096, 'the thread copies the new pages');
      await until(() => checkpoints.checkpointed > 0, 'the thread says what it copied');
    } finally {
      await checkpoints.stop();
    }
    assert.equal(checkpoints.taken, 'by the writer');
    assert.equal(autocheckpoint(writer), INLINE_CHECKPOINT_PAGES);
    writer.close();
    assert.equal(existsSync(`${path}-wal`), false, 'the last close checkpointed the log and removed it');
  });

  it('gives them back to the writer, and says why, when the thread fails', async () => {
    const writer = openSqliteConnection(join(directory, 'writer.db'));
    writer.pragma('wal_autocheckpoint = 7');
    // A log large enough to start the thread, beside a "database" the thread cannot open: a directory.
    const unopenable = join(directory, 'unopenable.db');
    mkdirSync(unopenable);
    writeFileSync(`${unopenable}-wal`, Buffer.alloc((INLINE_CHECKPOINT_PAGES + 1) * 4096));
    const warnings: string[] = [];
    const checkpoints = new BackgroundCheckpoints(unopenable, writer, DEFAULT_DATABASE_TIMEOUTS.lockMs, QUICK, (error) =>
      warnings.push(error.message),
    );
    try {
      await until(() => checkpoints.taken === 'by the writer, the thread failed', 'the failure is noticed');
      assert.equal(autocheckpoint(writer), INLINE_CHECKPOINT_PAGES, "SQLite's own threshold again");
      assert.equal(warnings.length, 1, 'one warning');
      assert.match(warnings[0] ?? '', /^SQLite's checkpoints are taken on the event loop again: .*unable to open database file/);
    } finally {
      await checkpoints.stop();
      writer.close();
    }
  });

  it('is how the store takes them: by the writer until the log grows, and the store closes the thread with itself', async () => {
    const path = join(directory, 'store.db');
    const store = await openStore(`sqlite:${path}`);
    assert.equal(store.stats().checkpoints, 'by the writer');
    // Another connection grows the log (as `admin` would); the store's thread starts within its second of looking.
    const other = openSqliteConnection(path);
    writePages(other, INLINE_CHECKPOINT_PAGES + 100);
    other.close();
    await until(() => store.stats().checkpoints === 'on their thread', 'the store moves them to the thread', 5_000);
    await store.close();
    assert.equal(existsSync(`${path}-wal`), false, "the store's close checkpointed the log and removed it");
  });
});
