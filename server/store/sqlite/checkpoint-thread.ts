/**
 * The thread that checkpoints a SQLite database's write-ahead log for the
 * connection that writes it (checkpoints.ts), on a connection of its own. A
 * passive checkpoint copies the committed pages the log holds into the
 * database file without waiting for, or holding up, the writer and its
 * readers. The thread asks for one as SQLite itself would, once 1,000 pages
 * wait to be copied, and besides once a second while any wait: it looks every
 * `lookEveryMs` at how many wait, in the log's index (`<database>-shm`). Each
 * checkpoint copies the latest version of every page in the log, so one taken
 * at every look copied the pages that every commit writes (the users' and the
 * trail's last pages) many times over: update_user's CPU time rose by a tenth.
 * Each time it copied pages, the thread says how many frames the log held and
 * how many are now in the database file.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { endianness } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteConnection } from './open-connection.js';

/** What the writer's side tells the thread when it starts it. */
export interface CheckpointThreadSettings {
  path: string;
  /** How often the thread looks at how many pages wait to be copied. */
  lookEveryMs: number;
  /** A checkpoint once this many pages wait. */
  pagesWaiting: number;
  /** A checkpoint at least this often while any page waits. */
  atLeastEveryMs: number;
  lockTimeoutMs: number;
}

/** What the thread says: its connection is open, or a checkpoint copied pages. */
export type CheckpointThreadMessage = { ready: true } | { log: number; checkpointed: number };

interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/**
 * Where the log's index keeps the last frame of the log (mxFrame, in the first copy of its
 * header) and the last one copied (nBackfill, in the checkpoint information after the header's
 * two copies), in the machine's byte order: https://www.sqlite.org/walformat.html.
 */
const MX_FRAME_AT = 16;
const N_BACKFILL_AT = 96;

/**
 * Passive checkpoints after the first, at most, while commits landed during the one before: each
 * copies only what those commits wrote, and once every page of the log is copied, the writer
 * starts the log afresh at its next commit.
 */
const CATCH_UP_CHECKPOINTS = 8;

const port = parentPort;
if (!port) throw new Error('checkpoint-thread.ts runs as a worker thread (checkpoints.ts)');
const settings = workerData as CheckpointThreadSettings;
const connection = openSqliteConnection(settings.path, settings.lockTimeoutMs);
const index = openSync(`${settings.path}-shm`, 'r');
const header = Buffer.alloc(N_BACKFILL_AT + 4);
const readUint32 = (offset: number) => (endianness() === 'LE' ? header.readUInt32LE(offset) : header.readUInt32BE(offset));

/** Pages the log holds that are not yet in the database file; all of them when the index cannot say. */
function pagesWaiting(): number {
  if (readSync(index, header, 0, header.length, 0) < header.length) return Number.POSITIVE_INFINITY;
  return Math.max(0, readUint32(MX_FRAME_AT) - readUint32(N_BACKFILL_AT));
}

function checkpoint(): CheckpointResult | undefined {
  let result: CheckpointResult | undefined;
  for (let pass = 0; pass <= CATCH_UP_CHECKPOINTS; pass++) {
    [result] = connection.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
    if (!result || result.checkpointed >= result.log) break;
  }
  return result;
}

let lastCheckpoint = Date.now();
let copied = -1;
const timer = setInterval(() => {
  const waiting = pagesWaiting();
  if (waiting === 0) return;
  if (waiting < settings.pagesWaiting && Date.now() - lastCheckpoint < settings.atLeastEveryMs) return;
  lastCheckpoint = Date.now();
  const result = checkpoint();
  if (!result || result.checkpointed === copied) return;
  copied = result.checkpointed;
  if (copied > 0) port.postMessage({ log: result.log, checkpointed: copied } satisfies CheckpointThreadMessage);
}, settings.lookEveryMs);
port.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  closeSync(index);
  connection.close();
  port.close();
});
port.postMessage({ ready: true } satisfies CheckpointThreadMessage);
