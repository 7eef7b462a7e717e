import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openTestStore, TEST_STORE, type TestStore } from './open-test-store.js';
import { type RowChanges, watchRowChanges } from './row-changes.js';

describe(`the count of rows written, for "a refusal changed nothing" (${TEST_STORE})`, () => {
  let opened: TestStore;
  let changes: RowChanges;
  before(async () => {
    opened = await openTestStore();
    changes = await watchRowChanges(opened.inspection, ['console_sessions'], ['last_seen']);
  });
  after(() => opened.close());

  const run = (statement: ReturnType<typeof sql>) => opened.inspection.execute(statement);
  const session = (digest: string) =>
    sql`(${digest}, 'key0000000000001', '2026-11-27T10:00:00.000Z', '2026-11-27T10:00:00.000Z', '2026-11-27T22:00:00.000Z')`;
  const insert = (...digests: string[]) =>
    run(sql`INSERT INTO console_sessions (token_digest, api_key, created, last_seen, expires) VALUES ${sql.join(digests.map(session))}`);

  it('rises with each row inserted, updated or deleted, and only then', async () => {
    const start = await changes.count();
    await run(sql`SELECT * FROM console_sessions`);
    assert.equal(await changes.count(), start, 'a read');
    await insert('a', 'b');
    assert.equal(await changes.count(), start + 2);
    await run(sql`UPDATE console_sessions SET expires = '2026-11-27T23:00:00.000Z' WHERE token_digest = 'a'`);
    assert.equal(await changes.count(), start + 3);
    await run(sql`DELETE FROM console_sessions WHERE token_digest = 'b'`);
    assert.equal(await changes.count(), start + 4);
  });

  it('leaves out the columns it is told to, and the tables it does not watch', async () => {
    await insert('c');
    const start = await changes.count();
    await run(sql`UPDATE console_sessions SET last_seen = '2026-11-27T10:05:00.000Z' WHERE token_digest = 'c'`);
    await run(sql`CREATE TABLE unwatched (id integer)`);
    await run(sql`INSERT INTO unwatched (id) VALUES (1)`);
    assert.equal(await changes.count(), start);
  });

  it('does not count a write that rolled back', async () => {
    await insert('d');
    const start = await changes.count();
    // The second row's key is taken: the statement fails, and the first row goes with it.
    await assert.rejects(insert('e', 'd'));
    assert.equal(await changes.count(), start);
  });
});
