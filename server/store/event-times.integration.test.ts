/**
 * Events found by time without an index by time (event-times.ts): an event's
 * time is the millisecond its id carries, and the time itself decides at the
 * millisecond, for events recorded before migration 0022 too, whose time was
 * read from the clock apart from their id.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { idsFrom } from './event-ids.js';
import type { AuditEvent } from './records.js';
import { newUserRecord, openTestStore, TEST_STORE, type TestStore } from './testing/open-test-store.js';
import { TEST_SETUP } from '../testing/test-setup.js';

const shifted = (time: string, ms: number) => new Date(Date.parse(time) + ms).toISOString();

describe(`events by time (${TEST_STORE})`, () => {
  let opened: TestStore;
  before(async () => {
    opened = await openTestStore();
  });
  after(() => opened.close());

  /** Every event, newest first. */
  const all = async () => (await opened.store.audit.list({ pageSize: 100 })).events;
  const ids = (events: AuditEvent[]) => events.map((event) => event.event_id);

  it('carries the time of its id, and answers since, until and the retention at the millisecond, earlier events included', async () => {
    const { store, inspection } = opened;
    for (let index = 0; index < 4; index++) await store.users.create(newUserRecord(), TEST_SETUP);
    const written = await all();
    for (const event of written)
      assert.ok(event.event_id.startsWith(idsFrom(Date.parse(event.time))), `${event.event_id} at ${event.time}`);

    // Two events as recorded before migration 0022: one whose clock was read 30 s after its id
    // was made, one whose clock had stepped back 30 s.
    const [late, early] = written.slice(1, 3) as [AuditEvent, AuditEvent];
    await inspection.execute(sql`update audit_events set time = ${shifted(late.time, 30_000)} where event_id = ${late.event_id}`);
    await inspection.execute(sql`update audit_events set time = ${shifted(early.time, -30_000)} where event_id = ${early.event_id}`);
    const events = await all();
    const times = [...new Set(events.flatMap((event) => [-1, 0, 1].map((ms) => shifted(event.time, ms))))];
    for (const time of times) {
      assert.deepEqual(
        ids((await store.audit.list({ pageSize: 100, since: time })).events),
        ids(events.filter((e) => e.time >= time)),
        `since ${time}`,
      );
      assert.deepEqual(
        ids((await store.audit.list({ pageSize: 100, until: time })).events),
        ids(events.filter((e) => e.time < time)),
        `until ${time}`,
      );
    }

    // The retention deletes by time as well: the late event stays when the others before it go.
    const olderThan = shifted(late.time, -1);
    const expected = events.filter((event) => event.time >= olderThan);
    assert.equal(await store.audit.prune(olderThan, 100), events.length - expected.length);
    assert.deepEqual(ids(await all()), ids(expected));
    assert.ok(ids(expected).includes(late.event_id));
  });
});
