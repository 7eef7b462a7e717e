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

/** Resolves when the socket takes more, or when it has gone (the client left). */
function writable(res: Response): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

export async function sendStreamed(req: Request, res: Response, streamed: StreamedJson): Promise<void> {
  res.status(200).type('json');
  // The status now, as an uncompressed first write would send it: compressed, it would wait in zlib
  // for the first batch's bytes, and a read failing before then would cut a connection with no status.
  res.flushHeaders();
  try {
    for await (const chunk of streamed.chunks) {
      if (res.destroyed) return; // The client left: stop reading the database for it.
      if (!res.write(chunk)) await writable(res);
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
