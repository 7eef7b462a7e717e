import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { Request, Response } from 'express';
import { sendStreamed, StreamedJson } from './streamed-json.js';

/**
 * A response as the `compression` package leaves it: its 'drain' listeners go to the
 * compression stream, which res.off cannot reach; every write asks to wait for a drain.
 */
function compressedResponse() {
  const stream = new EventEmitter();
  const own = new EventEmitter();
  const written: string[] = [];
  const res = {
    destroyed: false,
    status: () => res,
    type: () => res,
    flushHeaders: () => {},
    flush: () => {},
    write(chunk: string) {
      written.push(chunk);
      setImmediate(() => stream.emit('drain'));
      return false;
    },
    end: () => own.emit('finish'),
    on: (event: string, listener: () => void) => ((event === 'drain' ? stream : own).on(event, listener), res),
    off: (event: string, listener: () => void) => (own.off(event, listener), res),
  };
  return { res: res as unknown as Response, stream, written };
}

describe('a streamed JSON answer', () => {
  it('waits for each drain without leaving a listener per chunk on the compression stream', async () => {
    const { res, stream, written } = compressedResponse();
    const chunks = Array.from({ length: 30 }, (_, index) => `${index},`);
    async function* produced() {
      yield* chunks;
    }
    await sendStreamed({} as unknown as Request, res, new StreamedJson(produced()));
    assert.deepEqual(written, chunks);
    assert.ok(stream.listenerCount('drain') <= 1, `${stream.listenerCount('drain')} drain listeners left`);
  });
});
