/**
 * Group commit: writes that arrive while the event loop is busy commit together.
 *
 * With `synchronous=FULL`, every SQLite commit waits for an fsync, and the one
 * connection waits with it. The writes queued during one turn of the event loop
 * run in a single transaction at the next, so one fsync makes them all durable.
 * Each caller hears back only after that commit: an acknowledged write is on
 * disk, as without grouping.
 *
 * Each write runs on a savepoint of its own: one refused (a username already
 * taken, an Idempotency-Key another request holds) undoes its own statements,
 * whichever failed, and leaves the others in place. Any other failure rolls the
 * whole group back, and every write in it fails.
 *
 * A write that follows a read of the same turn's read group (read-group.ts: a
 * rewrite reads its user first) would otherwise be queued while the next turn's
 * commit is already waiting, and commit a turn later: a rewrite then spans two
 * turns, and each commit holds a third fewer writes than it could (SCIM's PATCH: 21 a
 * commit against update_user's 31, BENCHMARKS.md). `reserve()`, called just
 * after the read is asked, places this turn's commit after the read group, so
 * that the writes its reads lead to commit with it.
 */
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { GroupCommit } from '../database-traits.js';
import type { Database } from '../schema.js';
import { present } from '../../../lib/present.js';

type Work<T> = (trx: Transaction<Database>) => Promise<T>;

interface Job {
  work: Work<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Each write's savepoint statements, compiled once: built from a template on every use, the
 * pair cost a write about 2 µs more (BENCHMARKS.md).
 */
const SAVEPOINT = CompiledQuery.raw('savepoint write');
const RELEASE = CompiledQuery.raw('release write');
const ROLLBACK_TO = CompiledQuery.raw('rollback to write');

export class CommitGroup implements GroupCommit {
  #queued: Job[] = [];
  /** Whether a commit is set to run at the next check of the event loop, with what is queued by then. */
  #scheduled = false;

  constructor(
    private readonly db: Kysely<Database>,
    /** Errors that refuse one write, which is undone alone while the group goes on without it. */
    private readonly isRefusal: (error: unknown) => boolean,
    /** Told how many writes each group held, when it commits (or fails): for metrics. */
    private readonly onCommit?: (writes: number) => void,
  ) {}

  /** Runs `work` in the next group's transaction; resolves once that transaction is committed. */
  run<T>(work: Work<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.reserve();
      this.#queued.push({ work, resolve: resolve, reject });
    });
  }

  /** Sets the next commit to run after what is already set to run at the next check, if none is set yet. */
  reserve(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => void this.#commit());
  }

  async #commit(): Promise<void> {
    this.#scheduled = false;
    const jobs = this.#queued;
    this.#queued = [];
    // Reserved, and no write came: nothing to commit.
    if (jobs.length === 0) return;
    this.onCommit?.(jobs.length);
    const outcomes: Outcome[] = [];
    try {
      await this.db.transaction().execute(async (trx) => {
        for (const job of jobs) {
          await trx.executeQuery(SAVEPOINT);
          try {
            const value = await job.work(trx);
            await trx.executeQuery(RELEASE);
            outcomes.push({ ok: true, value });
          } catch (error) {
            if (!this.isRefusal(error)) throw error;
            await trx.executeQuery(ROLLBACK_TO);
            await trx.executeQuery(RELEASE);
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (error) {
      for (const job of jobs) job.reject(error);
      return;
    }
    jobs.forEach((job, index) => {
      const outcome = present(outcomes[index], `the outcome of write ${index}`);
      if (outcome.ok) job.resolve(outcome.value);
      else job.reject(outcome.error);
    });
  }
}
