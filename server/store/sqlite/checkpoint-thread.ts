/**
 * The thread that copies a large commit's pages from a SQLite database's
 * write-ahead log into the database file (large-commits.ts), on a connection
 * of its own: each time it is asked, one passive checkpoint, which copies every
 * committed page the log holds without waiting for, or holding up, the writer
 * and its readers. It answers with how many frames the log held and how many
 * are now in the database file.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openSqliteConnection } from './open-connection.js';

/** What the writer's side tells the thread when it starts it. */
export interface CheckpointThreadSettings {
  path: string;
  lockTimeoutMs: number;
}

/** What the writer's side asks: a checkpoint, or to stop. */
export type CheckpointThreadRequest = 'checkpoint' | 'stop';

/** What the thread answers each checkpoint with (SQLite's `wal_checkpoint` result). */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

const port = parentPort;
if (!port) throw new Error('checkpoint-thread.ts runs as a worker thread (large-commits.ts)');
const { path, lockTimeoutMs } = workerData as CheckpointThreadSettings;
const connection = openSqliteConnection(path, lockTimeoutMs);
port.on('message', (request: CheckpointThreadRequest) => {
  if (request === 'checkpoint') {
    const [result] = connection.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
    port.postMessage(result);
  } else {
    connection.close();
    port.close();
  }
});
