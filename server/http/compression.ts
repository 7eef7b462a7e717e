/**
 * Answers compressed as the client asks (`Accept-Encoding`: Brotli, gzip or
 * deflate), by the `compression` package: every JSON answer above a
 * kilobyte, the streamed listing of every user as it is written (one zlib
 * chunk at a time, never the whole answer held), and the API reference page.
 * Kasm's Python clients and browsers ask for gzip by default; a listing of
 * 100,000 users goes from tens of megabytes to a few (BENCHMARKS.md).
 */
import compression from 'compression';
import type { RequestHandler } from 'express';

/** Below this, the bytes saved do not pay for the work. */
export const COMPRESSION_THRESHOLD_BYTES = 1_024;

export function compressedAnswers(): RequestHandler {
  return compression({ threshold: COMPRESSION_THRESHOLD_BYTES });
}
