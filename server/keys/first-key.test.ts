import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { PERMISSIONS } from '../../lib/contract/operations.js';
import { createLogger } from '../logger.js';
import { issueApiKey } from './api-keys.js';
import { deliverFirstKey } from './first-key.js';

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

describe('the first key', () => {
  const issued = issueApiKey('first key', PERMISSIONS, null);

  it('is printed on a terminal, and logged nowhere', async () => {
    const terminal = output(true);
    const log = output(false);
    const file = join(tmpdir(), 'never-written.json');
    assert.equal(deliverFirstKey(issued, { terminal, file, logger: createLogger('info', log) }), 'terminal');
    assert.match(terminal.text(), new RegExp(issued.secret));
    assert.equal(log.text(), '');
    await assert.rejects(stat(file));
  });

  it('without a terminal, goes to a file only its user can read, replacing any old one, and the log names the file but not the secret', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'workspace-first-key-'));
    try {
      const file = join(directory, 'keys', 'first-api-key.json');
      await deliverFirstKey(issueApiKey('old', [], null), { terminal: output(false), file, logger: createLogger('silent') });
      await writeFile(file, 'an older file, left readable', { mode: 0o644 });
      const log = output(false);
      const terminal = output(false);
      assert.equal(deliverFirstKey(issued, { terminal, file, logger: createLogger('info', log) }), file);
      assert.deepEqual(JSON.parse(await readFile(file, 'utf8')), { api_key: issued.record.api_key, api_key_secret: issued.secret });
      assert.equal((await stat(file)).mode & 0o777, 0o600);
      assert.equal(terminal.text(), '');
      assert.match(log.text(), new RegExp(`"file":"${file}"`));
      assert.doesNotMatch(log.text(), new RegExp(issued.secret));
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
