import assert from 'node:assert/strict';
import { mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery } from 'kysely';
import { issueApiKey } from '../../keys/api-keys.js';
import { TEST_SETUP } from '../../testing/test-setup.js';
import { KyselyApiKeyRepository } from '../api-key-repository.js';
import { AuditWriter } from '../audit-repository.js';
import type { ImmediateReads } from '../database-traits.js';
import { openDatabase, type OpenedDatabase, serviceStore } from '../open-store.js';
import type { Store } from '../repositories.js';
import { walIndexMarks } from './commit-marks.js';

describe("SQLite's commit marks, and the API keys remembered until the next commit", () => {
  let directory: string;
  let file: string;
  let opened: OpenedDatabase;
  let store: Store;
  /** Another connection to the same file, as another process (the admin CLI) has. */
  let other: BetterSqlite3.Database;
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'commit-marks-'));
    file = join(directory, 'users.db');
    opened = await openDatabase(`sqlite:${file}`);
    store = await serviceStore(opened);
    other = new BetterSqlite3(file);
  });
  after(async () => {
    other.close();
    await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  const mark = () => {
    const now = opened.marks?.current();
    assert.ok(now, 'a mark while the database is open');
    return now;
  };

  it('keep their mark while nothing is committed, and change it with every commit, of this connection or of another process', async () => {
    const before = mark();
    await opened.db.selectFrom('api_keys').selectAll().execute();
    other.prepare('select count(*) from users').get();
    assert.ok(mark().equals(before), 'reads leave the mark as it was');
    await store.apiKeys.insert(issueApiKey('marked', ['users_view'], null).record, TEST_SETUP);
    const afterOwnCommit = mark();
    assert.ok(!afterOwnCommit.equals(before), "the service's own commit changes it");
    other.prepare("update api_keys set name = 'renamed' where name = 'marked'").run();
    assert.ok(!mark().equals(afterOwnCommit), "another process's commit changes it");
  });

  it("read the wal-index where SQLite keeps it when the database's path is a link: beside the file itself", async () => {
    const link = join(directory, 'linked.db');
    await symlink(file, link);
    const linked = walIndexMarks(link);
    try {
      assert.ok(linked.current()?.equals(mark()));
    } finally {
      linked.close();
    }
  });

  it('give no mark where the header cannot be trusted: no wal-index, another layout, or its two copies differing', async () => {
    assert.equal(walIndexMarks(join(directory, 'absent.db')).current(), undefined);
    const header = Buffer.alloc(136);
    header.writeUInt32LE(3_007_000, 0);
    header[12] = 1;
    header.copy(header, 48, 0, 48);
    const shm = join(directory, 'crafted.db');
    await writeFile(shm, '');
    const read = async (bytes: Buffer) => {
      await writeFile(`${shm}-shm`, bytes);
      const marks = walIndexMarks(shm);
      try {
        return marks.current();
      } finally {
        marks.close();
      }
    };
    assert.ok(await read(header), 'a header of the known layout, both copies alike');
    const torn = Buffer.from(header);
    torn[16] = 7; // the first copy's mxFrame, being written
    assert.equal(await read(torn), undefined);
    const otherLayout = Buffer.from(header);
    otherLayout.writeUInt32LE(3_008_000, 0);
    otherLayout.writeUInt32LE(3_008_000, 48);
    assert.equal(await read(otherLayout), undefined);
    const uninitialised = Buffer.from(header);
    uninitialised[12] = 0;
    uninitialised[60] = 0;
    assert.equal(await read(uninitialised), undefined);
  });

  it('answers a key again without reading it until something is committed; a revocation by another process is seen at once', async () => {
    const key = issueApiKey('remembered', ['users_view'], null);
    await store.apiKeys.insert(key.record, TEST_SETUP);
    const statements: string[] = [];
    const immediate = opened.immediate!;
    const counting: ImmediateReads = {
      rows<R>(query: CompiledQuery<R>) {
        statements.push(query.sql);
        return immediate.rows(query);
      },
    };
    const keys = new KyselyApiKeyRepository(opened.db, opened.traits, new AuditWriter(opened.db, opened.traits), counting, opened.marks);
    assert.deepEqual(await keys.find(key.record.api_key), key.record);
    assert.deepEqual(await keys.find(key.record.api_key), key.record);
    assert.equal(statements.length, 1, 'read once while nothing was committed');

    other.prepare('update api_keys set revoked = ? where api_key = ?').run('2026-11-29T00:00:00.000Z', key.record.api_key);
    assert.equal((await keys.find(key.record.api_key))?.revoked, '2026-11-29T00:00:00.000Z');
    assert.equal(statements.length, 2);

    // Any commit, of any table, makes the next find read again.
    await store.apiKeys.insert(issueApiKey('another', ['users_view'], null).record, TEST_SETUP);
    await keys.find(key.record.api_key);
    assert.equal(statements.length, 3);
  });

  it('hands out keys no caller can change, since every request shares them', async () => {
    const key = issueApiKey('shared', ['users_view'], null);
    await store.apiKeys.insert(key.record, TEST_SETUP);
    const found = (await store.apiKeys.find(key.record.api_key))!;
    assert.throws(() => found.permissions.push('users_modify'), TypeError);
    assert.throws(() => ((found as { revoked: string | null }).revoked = null), TypeError);
  });
});
