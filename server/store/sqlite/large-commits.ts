/**
 * A large commit's pages are copied into the database file off the event loop.
 *
 * In WAL mode SQLite appends each commit to the write-ahead log and, inside the
 * commit that brings the log past AUTOMATIC_CHECKPOINT_PAGES, copies the log into the database
 * file and syncs it (a checkpoint). better-sqlite3 runs that commit on the
 * event loop's thread, so the deletion of a 10,000-member group held every
 * request for its 4,500 pages' copy as well: 45-60 ms of its 130 ms commit
 * (BENCHMARKS.md). So a transaction that changed LARGE_COMMIT_ROWS rows or more
 * commits without the automatic checkpoint, and a thread of its own
 * (checkpoint-thread.ts) copies the log; once it has, the writer checkpoints as
 * SQLite does again, and its next checkpoint has little left to copy.
 *
 * Every other commit keeps SQLite's own checkpoints: taken by the writer, the
 * log is always found all copied after one, and SQLite starts it afresh. Taken
 * on a thread for every commit they were not, the log grew, and the webhook's
 * commit-to-receipt latency at 500 writes/s missed its target in 6 runs of 9
 * (BENCHMARKS.md). Large commits one after another would grow the log in the
 * same way: past MOST_LOG_PAGES, the next transaction waits for the thread's
 * copy (the event loop free meanwhile) and begins on a log all copied. The
 * thread starts at the first large commit; should it fail, the writer takes the
 * checkpoints back and a warning says why.
 */
import { Worker } from 'node:worker_threads';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type BetterSqlite3 from 'better-sqlite3';
import type { CheckpointResult, CheckpointThreadRequest, CheckpointThreadSettings } from './checkpoint-thread.js';
import { AUTOMATIC_CHECKPOINT_PAGES } from './open-connection.js';

/**
 * Rows a transaction changes, at least, for its commit to leave the copy to the thread: a change
 * of about 250 members or more (each a membership, the user's version, an event and its links).
 */
export const LARGE_COMMIT_ROWS = 1_000;
/**
 * Pages the log may reach while large commits leave their copies to the thread. SQLite starts the
 * log afresh only at a transaction that begins once all of it is copied, and large commits one
 * after another (an identity provider adding members, PATCH after PATCH) each begin while the
 * thread still copies the one before: past this, the next transaction begins once the thread has
 * copied, and the writer the few pages committed since, so that it starts the log afresh. Twice
 * the automatic threshold: 32 MB of log with 4 KB pages.
 */
export const MOST_LOG_PAGES = 8_000;

/** The thread's file: beside this one, compiled or not (`.js` under dist, `.ts` under tsx). */
const THREAD_FILE = new URL(`./checkpoint-thread${extname(fileURLToPath(import.meta.url))}`, import.meta.url);

/** How long a thread asked to stop may take before it is terminated. */
const STOP_WITHIN_MS = 5_000;

export class LargeCommits {
  readonly #totalChanges: BetterSqlite3.Statement;
  #changesAtBegin = 0;
  #thread: Worker | undefined;
  #exited: Promise<void> = Promise.resolve();
  #failed = false;
  #stopping = false;
  /** Checkpoints asked of the thread and not yet answered. */
  #asked = 0;
  /** The log's length in pages at the last checkpoint; 0 once the writer found all of it copied (the next write starts it afresh). */
  #logPages = 0;
  /** Settled when the thread has answered every checkpoint asked of it (or stopped, or failed). */
  #copied: Promise<void> = Promise.resolve();
  #settleCopied = () => {};

  constructor(
    /** The database file, which the writer has open. */
    private readonly path: string,
    /** The writer's connection. */
    private readonly writer: BetterSqlite3.Database,
    private readonly lockTimeoutMs: number,
    /** Told why, when the thread fails and the writer takes the checkpoints back. */
    private readonly onFailure: (error: Error) => void = (error) => process.emitWarning(error.message, 'CheckpointWarning'),
  ) {
    this.#totalChanges = writer.prepare('select total_changes()').pluck();
  }

  /** Whether the thread is copying a large commit's pages now: the writer does not checkpoint meanwhile. */
  get copying(): boolean {
    return this.#asked > 0;
  }

  /**
   * A transaction is about to begin: when large commits grew the log past MOST_LOG_PAGES, once
   * the thread's copy is done (the event loop free meanwhile), the writer copies what came since.
   */
  async beforeBegin(): Promise<void> {
    if (this.#logPages < MOST_LOG_PAGES || this.#failed || this.#stopping) return;
    // The thread is unref'd: while a transaction waits for it, it keeps the process alive (a
    // command with nothing else to do would otherwise end here, its transaction never begun).
    this.#thread?.ref();
    try {
      await this.#copied;
    } finally {
      this.#thread?.unref();
    }
    if (!this.writer.open) return;
    const [result] = this.writer.pragma('wal_checkpoint(PASSIVE)') as CheckpointResult[];
    if (result && result.busy === 0 && result.checkpointed === result.log) this.#logPages = 0;
  }

  /** A transaction begins. */
  began(): void {
    this.#changesAtBegin = Number(this.#totalChanges.get());
  }

  /** The transaction is about to commit: when it is large, without the automatic checkpoint. */
  beforeCommit(): boolean {
    if (this.#failed || this.#stopping) return false;
    const large = Number(this.#totalChanges.get()) - this.#changesAtBegin >= LARGE_COMMIT_ROWS;
    if (large) this.writer.pragma('wal_autocheckpoint = 0');
    return large;
  }

  /** The transaction committed (or failed to): a large one's pages are the thread's to copy. */
  afterCommit(large: boolean): void {
    if (!large) return;
    try {
      this.#ask();
    } catch (error) {
      this.#fail(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #ask(): void {
    this.#thread ??= this.#start();
    if (this.#asked++ === 0) this.#copied = new Promise((resolve) => (this.#settleCopied = resolve));
    this.#thread.postMessage('checkpoint' satisfies CheckpointThreadRequest);
  }

  #start(): Worker {
    const settings: CheckpointThreadSettings = { path: this.path, lockTimeoutMs: this.lockTimeoutMs };
    const thread = new Worker(THREAD_FILE, { workerData: settings });
    this.#exited = new Promise((resolve) => thread.once('exit', () => resolve()));
    thread.on('message', (result: CheckpointResult) => {
      this.#asked--;
      if (result.log >= 0) this.#logPages = result.log;
      // Every large commit's pages copied: the writer checkpoints again, what little came since.
      if (this.#asked === 0) this.#answered();
    });
    thread.on('error', (error) => this.#fail(error));
    thread.on('exit', (code) => {
      if (!this.#stopping) this.#fail(new Error(`the thread ended with code ${code}`));
    });
    // A process that forgets to close its store is not kept alive by it (after the listeners, which would hold it again).
    thread.unref();
    return thread;
  }

  /** Nothing is asked of the thread any longer: the writer checkpoints as SQLite does. */
  #answered(): void {
    this.#asked = 0;
    if (this.writer.open) this.writer.pragma(`wal_autocheckpoint = ${AUTOMATIC_CHECKPOINT_PAGES}`);
    this.#settleCopied();
  }

  #fail(error: Error): void {
    if (this.#failed) return;
    this.#failed = true;
    this.#answered();
    this.onFailure(
      new Error(`SQLite's checkpoints after large commits are taken on the event loop again: ${error.message}`, { cause: error }),
    );
  }

  /** Stops the thread, before the writer closes: the writer's close then checkpoints the log one last time and removes it. */
  async stop(): Promise<void> {
    this.#stopping = true;
    const thread = this.#thread;
    if (thread && !this.#failed) {
      thread.postMessage('stop' satisfies CheckpointThreadRequest);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_WITHIN_MS)));
      if ((await Promise.race([this.#exited, late])) === 'late') await thread.terminate();
      clearTimeout(timer);
    }
    this.#answered();
  }
}
