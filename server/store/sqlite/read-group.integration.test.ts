import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteError } from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import { TEST_SETUP } from '../../testing/test-setup.js';
import { StoreCondition } from '../faults.js';
import { openDatabase, type OpenedDatabase, serviceStore } from '../open-store.js';
import type { Store } from '../repositories.js';
import { newUserRecord } from '../testing/open-test-store.js';
import { type CachingConnection, withStatementCache } from './connection.js';
import { openSqliteConnection } from './open-connection.js';
import { ReadGroup } from './read-group.js';

/** A promise and what settles it, for a transaction held open while the test looks on. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

const ONE = CompiledQuery.raw('select 1 as one');
const TWO = CompiledQuery.raw('select 2 as two');

describe("SQLite's grouped reads (a user's fields before a rewrite)", () => {
  let directory: string;
  let connection: CachingConnection;
  /** The statements the group prepared on the connection, in order. */
  let prepared: string[];
  let group: ReadGroup;
  let opened: OpenedDatabase;
  let store: Store;
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'read-group-'));
    connection = withStatementCache(openSqliteConnection(join(directory, 'reads.db')));
    connection.prepare('create table notes (note text)').run();
    prepared = [];
    const prepare = connection.prepare.bind(connection);
    connection.prepare = (sql) => (prepared.push(sql), prepare(sql));
    group = new ReadGroup(() => connection, new StoreCondition());
    opened = await openDatabase(`sqlite:${join(directory, 'users.db')}`);
    store = await serviceStore(opened);
  });
  after(async () => {
    connection.close();
    await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('run the reads asked during a turn at the next, together, in one read transaction', async () => {
    prepared.length = 0;
    const reads = [group.rows(ONE), group.rows(TWO)];
    assert.deepEqual(prepared, [], 'nothing read during the turn that asked');
    assert.deepEqual(await Promise.all(reads), [[{ one: 1 }], [{ two: 2 }]]);
    assert.deepEqual(prepared, ['begin', ONE.sql, TWO.sql, 'commit']);
    assert.equal(connection.inTransaction, false);
  });

  it('run a read alone as a transaction of its own', async () => {
    prepared.length = 0;
    assert.deepEqual(await group.rows(ONE), [{ one: 1 }]);
    assert.deepEqual(prepared, [ONE.sql]);
  });

  it("fail a read that fails alone, the others of its group answered (faults are translated as Kysely's are: faults.test.ts)", async () => {
    const [missing, one] = await Promise.allSettled([group.rows(CompiledQuery.raw('select * from no_such_table')), group.rows(ONE)]);
    assert.equal(missing.status, 'rejected');
    assert.ok(missing.reason instanceof SqliteError && missing.reason.code === 'SQLITE_ERROR', String(missing.reason));
    assert.deepEqual(one, { status: 'fulfilled', value: [{ one: 1 }] });
    assert.equal(connection.inTransaction, false, 'the transaction ended');
  });

  it('run selects only', async () => {
    await assert.rejects(group.rows(CompiledQuery.raw('delete from notes')), /selects only/);
  });

  it('answer nothing while a transaction holds the connection, and nothing before it opens', async () => {
    connection.prepare('begin').run();
    try {
      assert.deepEqual(await Promise.all([group.rows(ONE), group.rows(TWO)]), [undefined, undefined]);
    } finally {
      connection.prepare('commit').run();
    }
    assert.equal(await new ReadGroup(() => undefined, new StoreCondition()).rows(ONE), undefined);
  });

  it("read a user's fields before a rewrite with the turn's other reads, and through Kysely while a transaction holds the connection", async () => {
    const [first, second] = [await store.users.create(newUserRecord(), TEST_SETUP), await store.users.create(newUserRecord(), TEST_SETUP)];
    const grouped = opened.grouped!;
    const readGrouped = grouped.rows.bind(grouped);
    let answered = 0;
    grouped.rows = async (query) => {
      const rows = await readGrouped(query);
      if (rows !== undefined) answered++;
      return rows;
    };
    try {
      const both = await Promise.all([store.users.findFieldsById(first.record.user_id), store.users.findFieldsById(second.record.user_id)]);
      assert.deepEqual(
        both.map((fields) => fields?.version),
        [first.version, second.version],
      );
      assert.equal(answered, 2, 'read in a group');
      const [began, release] = [gate(), gate()];
      const held = opened.db.transaction().execute(async () => {
        began.open();
        await release.opened;
      });
      await began.opened;
      const reading = store.users.findFieldsById(first.record.user_id);
      await new Promise((resolve) => setImmediate(resolve));
      release.open();
      await held;
      assert.equal((await reading)?.record.username, first.record.username);
      assert.equal(answered, 2, 'read through Kysely, after the transaction');
    } finally {
      grouped.rows = readGrouped;
    }
  });
});
