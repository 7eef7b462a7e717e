/**
 * The thread that checkpoints a SQLite database's write-ahead log for the
 * connection that writes it (checkpoints.ts): a connection of its own, asking
 * for a passive checkpoint every `everyMs`. A passive checkpoint copies the
 * committed pages the log holds into the database file without waiting for, or
 * holding up, the writer and its readers, and does nothing when there is
 * nothing to copy. Each time it copied pages, the thread says how many frames
 * the log held and how many are now in the database file.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteConnection } from './open-connection.js';

/** What the writer's side tells the thread when it starts it. */
export interface CheckpointThreadSettings {
  path: string;
  everyMs: number;
  lockTimeoutMs: number;
}

/** What the thread says: its connection is open, or a checkpoint copied pages. */
export type CheckpointThreadMessage = { ready: true } | { log: number; checkpointed: number };

interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

const port = parentPort;
if (!port) throw new Error('checkpoint-thread.ts runs as a worker thread (checkpoints.ts)');
const { path, everyMs, lockTimeoutMs } = workerData as CheckpointThreadSettings;
const connection = openSqliteConnection(path, lockTimeoutMs);
let copied = -1;
const timer = setInterval(() => {
  const [result] = connection.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
  if (!result || result.checkpointed === copied) return;
  copied = result.checkpointed;
  if (copied > 0) port.postMessage({ log: result.log, checkpointed: copied } satisfies CheckpointThreadMessage);
}, everyMs);
port.on('message', (message: unknown) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  connection.close();
  port.close();
});
port.postMessage({ ready: true } satisfies CheckpointThreadMessage);
