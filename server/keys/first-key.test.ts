import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../logger.js';
import type { ApiKeyRecord } from '../store/records.js';
import type { Store } from '../store/repositories.js';
import { createFirstApiKey, FirstKeyError, handOverFirstKey } from './first-key.js';

/** A stream that keeps what is written, as a terminal or as a pipe to a log collector. */
function output(isTTY: boolean): Writable & { isTTY: boolean; text(): string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += chunk;
      done();
    },
  });
  return Object.assign(stream, { isTTY, text: () => text });
}

/** The API keys of a store, in memory: `raced` makes insertFirst lose to another instance. */
function keyStore({ raced = false } = {}): Store & { saved: ApiKeyRecord[] } {
  const saved: ApiKeyRecord[] = [];
  const apiKeys = {
    list: async () => [...saved],
    insertFirst: async (key: ApiKeyRecord) => {
      if (raced || saved.length > 0) return false;
      saved.push(key);
      return true;
    },
  };
  return Object.assign({ apiKeys } as unknown as Store, { saved });
}

async function inDirectory(test: (directory: string) => Promise<void>): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'workspace-first-key-'));
  try {
    await test(directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

describe('the first key', () => {
  it('is printed on a terminal, and logged nowhere; a second start makes none', async () => {
    const store = keyStore();
    const terminal = output(true);
    const log = output(false);
    const delivery = { terminal, file: join(tmpdir(), 'never-written.json'), logger: createLogger('info', log) };
    const issued = await createFirstApiKey(store, (key) => handOverFirstKey(key, delivery));
    assert.ok(issued);
    assert.deepEqual(store.saved, [issued.record]);
    assert.match(terminal.text(), new RegExp(issued.secret));
    assert.equal(log.text(), '');
    await assert.rejects(stat(delivery.file));
    assert.equal(await createFirstApiKey(store, (key) => handOverFirstKey(key, delivery)), undefined);
  });

  it('without a terminal, goes to a file only its user can read, replacing any old one, and the log names the file but not the secret', async () => {
    await inDirectory(async (directory) => {
      const file = join(directory, 'keys', 'first-api-key.json');
      await createFirstApiKey(keyStore(), (key) =>
        handOverFirstKey(key, { terminal: output(false), file, logger: createLogger('silent') }),
      );
      await writeFile(file, 'an older file, left readable', { mode: 0o644 });
      const [log, terminal] = [output(false), output(false)];
      const issued = await createFirstApiKey(keyStore(), (key) =>
        handOverFirstKey(key, { terminal, file, logger: createLogger('info', log) }),
      );
      assert.ok(issued);
      assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), { api_key: issued.record.api_key, api_key_secret: issued.secret });
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.equal(terminal.text(), '');
      assert.match(log.text(), new RegExp(`"file":"${file}"`));
      assert.doesNotMatch(log.text(), new RegExp(issued.secret));
    });
  });

  it('saves no key whose secret it cannot hand over, so the operator is never locked out', async () => {
    await inDirectory(async (directory) => {
      await writeFile(join(directory, 'a-file'), '');
      const store = keyStore();
      const file = join(directory, 'a-file', 'first-api-key.json'); // under a file: no one, root included, can write it
      await assert.rejects(
        createFirstApiKey(store, (key) => handOverFirstKey(key, { terminal: output(false), file, logger: createLogger('silent') })),
        (error: Error) => error instanceof FirstKeyError && /FIRST_KEY_FILE\); no key was created/.test(error.message),
      );
      assert.deepEqual(store.saved, []);
    });
  });

  it('takes back what it handed over when another instance saved a first key at the same moment', async () => {
    await inDirectory(async (directory) => {
      const file = join(directory, 'first-api-key.json');
      const log = output(false);
      const lost = await createFirstApiKey(keyStore({ raced: true }), (key) =>
        handOverFirstKey(key, { terminal: output(false), file, logger: createLogger('info', log) }),
      );
      assert.equal(lost, undefined);
      await assert.rejects(stat(file), 'the file of a key that was never saved is gone');
      assert.equal(log.text(), '');
      const terminal = output(true);
      await createFirstApiKey(keyStore({ raced: true }), (key) =>
        handOverFirstKey(key, { terminal, file, logger: createLogger('silent') }),
      );
      assert.match(terminal.text(), /the key above was not saved/);
    });
  });
});
