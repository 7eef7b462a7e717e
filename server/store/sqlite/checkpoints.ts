/**
 * Checkpoints off the event loop.
 *
 * In WAL mode SQLite appends each commit to the write-ahead log and, once the
 * log holds 1,000 pages, copies them into the database file and syncs it (a
 * checkpoint) inside the commit that crossed the line. better-sqlite3 runs
 * that commit on the event loop's thread, so every request waited for the copy:
 * about 40 % of the 130 ms that the commit of a 10,000-member group's deletion
 * held the loop (BENCHMARKS.md, "Checkpoints off the event loop").
 *
 * So once the log has grown to that size, the checkpoints move to a thread of
 * their own (checkpoint-thread.ts), on a connection of its own: passive ones,
 * which never wait for or hold up the writer, taken as SQLite would (once 1,000
 * pages wait to be copied) and besides once a second while any wait. The writer's connection then
 * checkpoints by itself only past CHECKPOINT_BACKSTOP_PAGES: a log that a
 * steady stream of commits keeps the thread from emptying (SQLite starts it
 * afresh only when a write finds every page copied) is copied, what little the
 * thread has not, at the next commit, and starts again. A store that never
 * writes that much never starts the thread. Should the thread fail, the writer
 * checkpoints as before and a warning says why.
 */
import { stat } from 'node:fs/promises';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type BetterSqlite3 from 'better-sqlite3';
import type { CheckpointThreadMessage, CheckpointThreadSettings } from './checkpoint-thread.js';

/** SQLite's own threshold (SQLITE_DEFAULT_WAL_AUTOCHECKPOINT): the writer checkpoints past it while no thread does. */
export const INLINE_CHECKPOINT_PAGES = 1_000;
/** Where the writer checkpoints even beside the thread: ten times SQLite's, 40 MB of 4 KiB pages. */
export const CHECKPOINT_BACKSTOP_PAGES = 10_000;

/** The thread's file: beside this one, compiled or not (`.js` under dist, `.ts` under tsx). */
const THREAD_FILE = new URL(`./checkpoint-thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

export interface CheckpointTimings {
  /** How often the log's size is looked at, until the thread starts. */
  walCheckMs: number;
  /** How often the thread looks at how many pages wait to be copied (checkpoint-thread.ts). */
  lookEveryMs: number;
  /** How often the thread checkpoints, at least, while pages wait. */
  atLeastEveryMs: number;
  /** How long a thread asked to stop may take before it is terminated. */
  stopWithinMs: number;
}

export const DEFAULT_CHECKPOINT_TIMINGS: CheckpointTimings = {
  walCheckMs: 1_000,
  lookEveryMs: 50,
  atLeastEveryMs: 1_000,
  stopWithinMs: 5_000,
};

/** Where the checkpoints are taken: by the writer, on their thread, or by the writer again after the thread failed. */
export type CheckpointsTaken = 'by the writer' | 'on their thread' | 'by the writer, the thread failed';

export class BackgroundCheckpoints {
  #taken: CheckpointsTaken = 'by the writer';
  #thread: Worker | undefined;
  #exited: Promise<void> = Promise.resolve();
  #stopping = false;
  #watch: NodeJS.Timeout | undefined;
  /** Frames the thread has copied into the database file, as it last said. */
  #checkpointed = 0;

  constructor(
    /** The database file, which the writer has open. */
    private readonly path: string,
    /** The writer's connection. */
    private readonly writer: BetterSqlite3.Database,
    private readonly lockTimeoutMs: number,
    private readonly timings: CheckpointTimings = DEFAULT_CHECKPOINT_TIMINGS,
    /** Told why, when the thread fails and the writer takes the checkpoints back. */
    private readonly onFailure: (error: Error) => void = (error) => process.emitWarning(error.message, 'CheckpointWarning'),
  ) {
    this.#watch = setInterval(() => void this.#startOnceGrown(), timings.walCheckMs);
    this.#watch.unref();
  }

  get taken(): CheckpointsTaken {
    return this.#taken;
  }

  /** Frames the thread has copied into the database file since the log last started afresh, as it last said. */
  get checkpointed(): number {
    return this.#checkpointed;
  }

  async #startOnceGrown(): Promise<void> {
    if (this.#thread || this.#stopping || this.#taken !== 'by the writer') return;
    const size = await stat(`${this.path}-wal`).then(
      (found) => found.size,
      () => 0,
    );
    if (!this.writer.open) return;
    const pageSize = Number(this.writer.pragma('page_size', { simple: true }));
    if (size >= INLINE_CHECKPOINT_PAGES * pageSize) this.#start();
  }

  #start(): void {
    // Looked at again: the store may have begun to close while the log's size was being read.
    if (this.#thread || this.#stopping) return;
    clearInterval(this.#watch);
    const settings: CheckpointThreadSettings = {
      path: this.path,
      lookEveryMs: this.timings.lookEveryMs,
      pagesWaiting: INLINE_CHECKPOINT_PAGES,
      atLeastEveryMs: this.timings.atLeastEveryMs,
      lockTimeoutMs: this.lockTimeoutMs,
    };
    const thread = new Worker(THREAD_FILE, { workerData: settings });
    this.#thread = thread;
    this.#exited = new Promise((resolve) => thread.once('exit', () => resolve()));
    thread.on('message', (message: CheckpointThreadMessage) => {
      if ('ready' in message) {
        if (!this.#stopping) this.#checkpointAt(CHECKPOINT_BACKSTOP_PAGES, 'on their thread');
      } else {
        this.#checkpointed = message.checkpointed;
      }
    });
    thread.on('error', (error) => this.#failed(error));
    thread.on('exit', (code) => {
      if (!this.#stopping) this.#failed(new Error(`the thread ended with code ${code}`));
    });
    // A process that forgets to close its store is not kept alive by it (after the listeners, which would hold it again).
    thread.unref();
  }

  #checkpointAt(pages: number, taken: CheckpointsTaken): void {
    if (this.writer.open) this.writer.pragma(`wal_autocheckpoint = ${pages}`);
    this.#taken = taken;
  }

  #failed(error: Error): void {
    if (this.#taken === 'by the writer, the thread failed') return;
    this.#checkpointAt(INLINE_CHECKPOINT_PAGES, 'by the writer, the thread failed');
    this.onFailure(new Error(`SQLite's checkpoints are taken on the event loop again: ${error.message}`, { cause: error }));
  }

  /** Stops the thread, before the writer closes: the writer's close then checkpoints the log one last time and removes it. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#watch);
    const thread = this.#thread;
    if (!thread) return;
    thread.postMessage('stop');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), this.timings.stopWithinMs)));
    if ((await Promise.race([this.#exited, late])) === 'late') await thread.terminate();
    clearTimeout(timer);
    this.#checkpointAt(INLINE_CHECKPOINT_PAGES, 'by the writer');
  }
}
