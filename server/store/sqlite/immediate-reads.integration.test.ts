import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteError } from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import { issueApiKey } from '../../keys/api-keys.js';
import { TEST_SETUP } from '../../testing/test-setup.js';
import { openDatabase, type OpenedDatabase, serviceStore } from '../open-store.js';
import type { Store } from '../repositories.js';

/** A promise and what settles it, for a transaction held open while the test looks on. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe("SQLite's immediate reads (the API key's, on every request)", () => {
  let directory: string;
  let opened: OpenedDatabase;
  let store: Store;
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'immediate-reads-'));
    opened = await openDatabase(`sqlite:${join(directory, 'users.db')}`);
    store = await serviceStore(opened);
  });
  after(async () => {
    await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('read at once the rows Kysely reads', async () => {
    const key = issueApiKey('reader', ['users_view'], null);
    await store.apiKeys.insert(key.record, TEST_SETUP);
    const query = CompiledQuery.raw('select api_key, name from api_keys where api_key = ?', [key.record.api_key]);
    const rows = opened.immediate?.rows(query);
    assert.deepEqual(rows, [{ api_key: key.record.api_key, name: 'reader' }]);
    assert.deepEqual(rows, (await opened.db.executeQuery(query)).rows);
    assert.deepEqual(await store.apiKeys.find(key.record.api_key), key.record);
  });

  it("never read inside a transaction: a key's uncommitted insert is not found, and is found once committed", async () => {
    const key = issueApiKey('pending', ['users_view'], null);
    const inserted = gate();
    const release = gate();
    const transaction = opened.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('api_keys')
        .values({
          api_key: key.record.api_key,
          name: key.record.name,
          secret_digest: key.record.secret_digest,
          permissions: key.record.permissions.join(','),
          created: key.record.created,
          expires: null,
          revoked: null,
          last_used: null,
        })
        .execute();
      inserted.open();
      await release.opened;
      throw new Error('rolled back on purpose');
    });
    await inserted.opened;
    assert.equal(
      opened.immediate?.rows(CompiledQuery.raw('select 1 as one')),
      undefined,
      'no immediate read while the transaction is open',
    );
    // Through Kysely, the read waits for the transaction: it sees what was committed, not what was written.
    let found: unknown = 'not yet answered';
    const finding = store.apiKeys.find(key.record.api_key).then((record) => (found = record));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(found, 'not yet answered', 'the read waited for the transaction');
    release.open();
    await assert.rejects(transaction, /rolled back on purpose/);
    await finding;
    assert.equal(found, undefined);
    assert.deepEqual(opened.immediate?.rows(CompiledQuery.raw('select 1 as one')), [{ one: 1 }]);
  });

  it("let an error that is not a fault through as it was (faults are translated as Kysely's are: faults.test.ts)", () => {
    assert.throws(
      () => opened.immediate?.rows(CompiledQuery.raw('select * from no_such_table')),
      (error: unknown) => error instanceof SqliteError && error.code === 'SQLITE_ERROR',
    );
  });

  it('run selects only', () => {
    assert.throws(() => opened.immediate?.rows(CompiledQuery.raw("delete from api_keys where api_key = ''")), /selects only/);
  });
});
