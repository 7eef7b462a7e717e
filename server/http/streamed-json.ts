/**
 * A JSON answer written to the socket as it is produced, for answers whose
 * size grows with the directory (get_users listing every user): memory holds
 * one chunk at a time, and a slow reader holds up the producer (back-pressure)
 * rather than making the service buffer for it.
 *
 * The status is sent before the first chunk, so a failure after it can no
 * longer become an error answer: the connection is then cut before the last
 * chunk, and the client sees a broken response (chunked encoding without its
 * end), never a shorter list that parses as complete.
 */
import type { Request, Response } from 'express';
import { requestLogger } from './request-logging.js';

export class StreamedJson {
  /** `chunks` joined are one JSON document. */
  constructor(readonly chunks: AsyncIterable<string>) {}
}

/**
 * Waits, when asked, until the socket takes more or has gone (the client left). One
 * listener of each for the whole answer, never one per chunk: compressed, the answer's
 * 'drain' listeners go to the compression stream (the `compression` package), where
 * `res.off` cannot reach them, and one per chunk piled up there (MaxListenersExceededWarning
 * on a listing of 10,000 users).
 */
function drainWaiter(res: Response): () => Promise<void> {
  let waiting: (() => void) | undefined;
  const wake = () => {
    const resolve = waiting;
    waiting = undefined;
    resolve?.();
  };
  res.on('drain', wake);
  res.on('close', wake);
  return () => (res.destroyed ? Promise.resolve() : new Promise((resolve) => (waiting = resolve)));
}

export async function sendStreamed(req: Request, res: Response, streamed: StreamedJson): Promise<void> {
  res.status(200).type('json');
  // The status now, as an uncompressed first write would send it: compressed, it would wait in zlib
  // for the first batch's bytes, and a read failing before then would cut a connection with no status.
  res.flushHeaders();
  const writable = drainWaiter(res);
  try {
    for await (const chunk of streamed.chunks) {
      if (res.destroyed) return; // The client left: stop reading the database for it.
      if (!res.write(chunk)) await writable();
      // The app compresses every answer it can (http/compression.ts, before every route): a batch would
      // wait in zlib for more, so each goes out whole, and a reader gets the users as they are read.
      res.flush();
    }
    res.end();
  } catch (error) {
    requestLogger(req, res).error({ err: error }, 'streamed answer broke off');
    res.destroy();
  }
}
