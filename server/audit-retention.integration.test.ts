import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { startAuditRetention } from './audit-retention.js';
import { createLogger } from './logger.js';
import { TEST_SETUP } from './testing/test-setup.js';
import { newUserRecord, openTestStore, TEST_STORE, type TestStore } from './store/testing/open-test-store.js';

describe(`audit retention (${TEST_STORE})`, () => {
  let opened: TestStore;
  before(async () => {
    opened = await openTestStore();
  });
  after(() => opened.close());

  it('deletes the events past AUDIT_RETENTION_DAYS, batch by batch, and only those', async () => {
    const { store, inspection } = opened;
    const users = [];
    for (let index = 0; index < 9; index++) users.push((await store.users.create(newUserRecord(), TEST_SETUP)).record);
    // Five events a year and a day old, one exactly 30 days old and a minute, three recent.
    const now = new Date('2026-11-23T12:00:00.000Z');
    const aged = (days: number, minutes = 0) => new Date(now.getTime() - days * 86_400_000 - minutes * 60_000).toISOString();
    for (const [index, user] of users.entries()) {
      const time = index < 5 ? aged(366) : index === 5 ? aged(30, 1) : aged(0, 5);
      await inspection.execute(sql`update audit_events set time = ${time} where target_user_id = ${user.user_id}`);
    }
    let logged = '';
    const logger = createLogger(
      'info',
      new Writable({
        write: (chunk, _encoding, done) => {
          logged += String(chunk);
          done();
        },
      }),
    );

    const yearly = startAuditRetention(store, { days: 365, batch: 2, logger, now: () => now, intervalMs: 3_600_000 });
    try {
      assert.equal(await yearly.pruneNow(), 5, 'five events, in batches of two');
    } finally {
      yearly.stop();
    }
    const left = (await inspection.rows('audit_events')).map((row) => row.target_user_id);
    assert.deepEqual(
      left.sort(),
      users
        .slice(5)
        .map((user) => user.user_id)
        .sort(),
    );
    assert.match(logged, /"pruned":5/);

    const monthly = startAuditRetention(store, { days: 30, logger, now: () => now, intervalMs: 3_600_000 });
    try {
      assert.equal(await monthly.pruneNow(), 1, 'only the one older than 30 days');
      assert.equal(await monthly.pruneNow(), 0, 'nothing twice');
    } finally {
      monthly.stop();
    }
    assert.equal((await inspection.rows('audit_events')).length, 3);
  });
});
