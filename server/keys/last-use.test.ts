import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { issueApiKey } from './api-keys.js';
import { LAST_USE_PRECISION_MS, LastUse } from './last-use.js';

/** A repository that records each write, answered when the test says. */
function recordingKeys() {
  const writes: { apiKey: string; when: string; since: string; settle: (error?: Error) => void }[] = [];
  return {
    writes,
    noteUse: (apiKey: string, when: string, since: string) =>
      new Promise<void>((resolve, reject) => writes.push({ apiKey, when, since, settle: (error) => (error ? reject(error) : resolve()) })),
  };
}

describe('LastUse', () => {
  const key = issueApiKey('k', [], null).record;

  it('writes a use once for a burst, and not again within the minute of the noted one', async () => {
    let now = Date.parse('2026-11-27T10:00:00.000Z');
    const keys = recordingKeys();
    const lastUse = new LastUse(
      keys,
      (error) => assert.fail(String(error)),
      () => now,
    );
    const writing = lastUse.note(key);
    await lastUse.note(key);
    assert.deepEqual(
      keys.writes.map(({ when, since }) => [when, since]),
      [['2026-11-27T10:00:00.000Z', '2026-11-27T09:59:00.000Z']],
      'one write for requests that came while it was on its way',
    );
    keys.writes[0]!.settle();
    await writing;
    now += 30_000;
    await lastUse.note({ ...key, last_used: '2026-11-27T10:00:00.000Z' });
    assert.equal(keys.writes.length, 1, 'a use within the minute of the noted one is not written');
    now += LAST_USE_PRECISION_MS;
    void lastUse.note({ ...key, last_used: '2026-11-27T10:00:00.000Z' });
    assert.equal(keys.writes.length, 2, 'a use past it is');
  });

  it('reports a failed write, and writes again at the next use', async () => {
    const failures: unknown[] = [];
    const keys = recordingKeys();
    const lastUse = new LastUse(keys, (error) => failures.push(error));
    const writing = lastUse.note(key);
    keys.writes[0]!.settle(new Error('database gone'));
    await writing;
    assert.deepEqual(
      failures.map((error) => (error as Error).message),
      ['database gone'],
    );
    void lastUse.note(key);
    assert.equal(keys.writes.length, 2);
  });
});
