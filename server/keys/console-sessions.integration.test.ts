/**
 * The console sessions' rules, on a clock the test moves: a session acts as its
 * key until it idles out, reaches its end (never past the key's expiry), is
 * ended, or its key is revoked or expires; its CSRF token is its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openTestStore, type TestStore } from '../store/testing/open-test-store.js';
import { TEST_SETUP } from '../testing/test-setup.js';
import { issueApiKey } from './api-keys.js';
import { ConsoleSessions } from './console-sessions.js';

const MINUTE = 60_000;

describe('console sessions', () => {
  let opened: TestStore;
  let now = Date.parse('2026-11-27T10:00:00.000Z');
  let sessions: ConsoleSessions;
  before(async () => {
    opened = await openTestStore();
    sessions = new ConsoleSessions(opened.store, { idleMs: 30 * MINUTE, absoluteMs: 12 * 60 * MINUTE }, () => now);
  });
  after(() => opened.close());

  const aKey = async (expires: Date | null = null) => {
    const { record } = issueApiKey('console', ['users_view'], expires, new Date(now));
    await opened.store.apiKeys.insert(record, TEST_SETUP);
    return record;
  };

  it('acts as its key while requests keep coming, and ends after 30 minutes without one', async () => {
    const key = await aKey();
    const session = await sessions.begin(key);
    assert.match(session.token, /^[A-Za-z0-9_-]{43}$/, '256 random bits');
    assert.equal(session.expires, new Date(now + 12 * 60 * MINUTE).toISOString(), 'twelve hours after sign-in');
    for (let step = 0; step < 4; step++) {
      now += 29 * MINUTE;
      assert.equal((await sessions.resume(session.token))?.key.api_key, key.api_key, `after ${(step + 1) * 29} minutes of use`);
    }
    now += 30 * MINUTE;
    assert.equal(await sessions.resume(session.token), undefined, 'idle for 30 minutes');
  });

  it('ends twelve hours after sign-in however busy, and at its key’s expiry if sooner', async () => {
    const session = await sessions.begin(await aKey());
    for (let minutes = 0; minutes < 12 * 60 - 20; minutes += 20) {
      now += 20 * MINUTE;
      assert.ok(await sessions.resume(session.token));
    }
    now += 20 * MINUTE;
    assert.equal(await sessions.resume(session.token), undefined);

    const soon = new Date(now + 10 * MINUTE);
    const short = await sessions.begin(await aKey(soon));
    assert.equal(short.expires, soon.toISOString());
    now += 10 * MINUTE;
    assert.equal(await sessions.resume(short.token), undefined);
  });

  it('ends when its key is revoked, and at sign-out', async () => {
    const key = await aKey();
    const revoked = await sessions.begin(key);
    const other = await sessions.begin(await aKey());
    await opened.store.apiKeys.revoke(key.api_key, new Date(now).toISOString(), TEST_SETUP);
    assert.equal(await sessions.resume(revoked.token), undefined);
    const live = await sessions.resume(other.token);
    assert.ok(live);
    await sessions.end(live);
    assert.equal(await sessions.resume(other.token), undefined);
  });

  it('keeps only a digest of the token, and gives each session a CSRF token of its own that no other matches', async () => {
    const key = await aKey();
    const [one, two] = [await sessions.begin(key), await sessions.begin(key)];
    const stored = JSON.stringify(await opened.inspection.rows('console_sessions'));
    assert.ok(!stored.includes(one.token) && !stored.includes(one.csrfToken));
    assert.notEqual(one.csrfToken, two.csrfToken);
    assert.equal((await sessions.resume(one.token))?.csrfToken, one.csrfToken, 'the same token after a reload');
    assert.equal(sessions.csrfMatches(one, one.csrfToken), true);
    for (const wrong of [two.csrfToken, undefined, '', one.csrfToken.slice(1)]) assert.equal(sessions.csrfMatches(one, wrong), false);
  });
});
