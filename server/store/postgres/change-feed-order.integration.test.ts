/**
 * What only PostgreSQL has to get right about the change feed: several writers
 * commit at once, each taking its events' places while it runs, and a follower
 * that reads "after place p" must never step past a place taken earlier by a
 * transaction that commits later. The sequencer (audit-repository.ts) makes
 * places follow the order of commit. Checked with a transaction that takes its
 * place and then holds it open while another writes, and with two instances
 * writing at once under a follower.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { TEST_SETUP } from '../../testing/test-setup.js';
import { createTestDatabase, type TestDatabase } from '../../testing/database.js';
import { AuditWriter } from '../audit-repository.js';
import { openDatabase, type OpenedDatabase } from '../open-store.js';
import type { PlacedChangeEvent } from '../records.js';
import type { Store } from '../repositories.js';
import { newUserRecord, openInspectedStore } from '../testing/open-test-store.js';

describe('PostgreSQL: the change feed in the order of commit', () => {
  let database: TestDatabase;
  let store: Store;
  let other: Store;
  let opened: OpenedDatabase;
  let watcher: pg.Client;
  before(async () => {
    assert.ok(process.env.TEST_POSTGRES_URL, 'run through scripts/with-postgres.ts (the PostgreSQL pass of npm run test:integration)');
    database = await createTestDatabase();
    store = (await openInspectedStore(database.url)).store;
    // A second instance: its own pool on the same database.
    other = (await openInspectedStore(database.url)).store;
    opened = await openDatabase(database.url);
    watcher = new pg.Client({ connectionString: database.url });
    await watcher.connect();
  });
  after(async () => {
    await watcher?.end();
    await opened?.db.destroy();
    await other?.close();
    await store?.close();
    await database?.drop();
  });

  /** Every event after `position`, page by page, as a follower reads them. */
  async function follow(position: number): Promise<{ events: PlacedChangeEvent[]; position: number }> {
    const events: PlacedChangeEvent[] = [];
    for (;;) {
      const page = await store.audit.feed({ after: position, since: '', limit: 50 });
      events.push(...page.events);
      position = page.events.length === 50 ? page.events.at(-1)!.position : page.head;
      if (page.events.length < 50) return { events, position };
    }
  }

  it('never steps past an event whose transaction took its place first and commits last', async () => {
    const start = await store.audit.head();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const writer = new AuditWriter(opened.db, opened.traits);
    let recorded!: () => void;
    const hasRecorded = new Promise<void>((resolve) => (recorded = resolve));
    const late = opened.db.transaction().execute(async (trx) => {
      await writer.record(trx, TEST_SETUP, { operation: 'createGroup', targetGroupId: 'c'.repeat(32), changedFields: ['name'] });
      recorded();
      await held;
    });
    await hasRecorded;
    let done = false;
    const quick = store.users.create(newUserRecord(), TEST_SETUP).finally(() => (done = true));
    // Until the second writer waits for the first (the sequencer), or has committed past it (no sequencer).
    const waiting = async () =>
      Number((await watcher.query(`select count(*) from pg_locks where locktype = 'advisory' and not granted`)).rows[0].count);
    while (!done && (await waiting()) === 0) await new Promise((resolve) => setImmediate(resolve));
    const first = await follow(start);
    release();
    await late;
    const created = await quick;
    const second = await follow(first.position);
    const told = [...first.events, ...second.events].map((placed) => placed.event.data.resource.id);
    assert.deepEqual(told, ['c'.repeat(32), created.record.user_id], 'both, once each, in the order they committed');
  });

  it("takes the sequencer with a transaction's first event, in one statement, before drawing the event's place", async () => {
    const start = await store.audit.head();
    let statements = 0;
    const counted = opened.db.withPlugin({
      transformQuery: (args) => args.node,
      transformResult: async (args) => (statements++, args.result),
    });
    const writer = new AuditWriter(counted, opened.traits);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let recorded!: () => void;
    const hasRecorded = new Promise<void>((resolve) => (recorded = resolve));
    const first = counted.transaction().execute(async (trx) => {
      const before = statements;
      await writer.record(trx, TEST_SETUP, { operation: 'createGroup', targetGroupId: 'd'.repeat(32), changedFields: ['name'] });
      assert.equal(statements - before, 1, 'the lock and the event in one statement');
      recorded();
      await held;
    });
    await hasRecorded;
    // A second transaction's first event waits for the sequencer; a place drawn meanwhile comes before its own.
    const second = counted
      .transaction()
      .execute((trx) =>
        writer.record(trx, TEST_SETUP, { operation: 'createGroup', targetGroupId: 'e'.repeat(32), changedFields: ['name'] }),
      );
    const waiting = async () =>
      Number((await watcher.query(`select count(*) from pg_locks where locktype = 'advisory' and not granted`)).rows[0].count);
    while ((await waiting()) === 0) await new Promise((resolve) => setImmediate(resolve));
    const drawnMeanwhile = Number((await watcher.query(`select nextval('audit_events_position_seq') as place`)).rows[0].place);
    release();
    await Promise.all([first, second]);
    const event = (await follow(start)).events.find((placed) => placed.event.data.resource.id === 'e'.repeat(32));
    assert.ok(event, "the second transaction's event");
    assert.ok(event.position > drawnMeanwhile, `its place (${event.position}) drawn once it held the sequencer, after ${drawnMeanwhile}`);
  });

  it('gives a follower every event of two instances writing at once exactly once, in the order of commit', async () => {
    const users = await Promise.all([1, 2, 3, 4].map(async () => (await store.users.create(newUserRecord(), TEST_SETUP)).record.user_id));
    let position = await store.audit.head();
    const seen: PlacedChangeEvent[] = [];
    let writing = true;
    const follower = (async () => {
      while (writing) {
        const page = await follow(position);
        seen.push(...page.events);
        position = page.position;
      }
    })();
    await Promise.all(
      users.flatMap((userId, index) =>
        [store, other].map(async (instance, side) => {
          for (let change = 0; change < 15; change++) {
            await instance.users.update(userId, { organization: `org-${index}-${side}-${change}` }, TEST_SETUP);
          }
        }),
      ),
    );
    writing = false;
    await follower;
    seen.push(...(await follow(position)).events);
    assert.equal(seen.length, users.length * 2 * 15, 'every update once');
    assert.equal(new Set(seen.map((placed) => placed.event.event_id)).size, seen.length, 'none twice');
    const positions = seen.map((placed) => placed.position);
    assert.deepEqual(
      positions,
      [...positions].sort((a, b) => a - b),
      'in the order of their places',
    );
    for (const userId of users) {
      const versions = seen
        .filter((placed) => placed.event.data.resource.id === userId)
        .map((placed) => placed.event.data.resource.version!);
      assert.deepEqual(
        versions,
        [...versions].sort((a, b) => a - b),
        "each user's versions in the order they were made",
      );
    }
  });
});
