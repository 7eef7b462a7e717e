/**
 * Grouped reads: reads that arrive while the event loop is busy run together.
 *
 * A read alone on SQLite's connection, after everything else a request does, found
 * SQLite's code and pages gone cold from the processor's caches: a rewrite's read of its
 * user took 17–22 µs under SCIM's PATCH load where the same read right after it took 5
 * (BENCHMARKS.md), and it took the read transaction's two locks on the wal-index each
 * time. So, as the commit group does for writes (commit-group.ts), the reads asked during
 * one turn of the event loop run at the next, back to back in one read transaction.
 *
 * Only while no transaction holds the connection, so that the group sees no transaction's
 * uncommitted writes: where one does, or where the connection is not open, each read of
 * the group is answered undefined and its caller takes Kysely's way, which waits its turn
 * (as ImmediateReads, ../database-traits.ts). A read's fault is translated as every
 * query's is and fails that read alone; a fault that ends the transaction fails the reads
 * not yet answered.
 */
import type { CompiledQuery } from 'kysely';
import type { GroupedReads } from '../database-traits.js';
import { readTranslated, type StoreCondition } from '../faults.js';
import type { CachingConnection } from './connection.js';
import { sqliteFault } from './faults.js';
import { selectOutsideKysely } from './select-outside-kysely.js';
import { present } from '../../../lib/present.js';

interface Read {
  query: CompiledQuery;
  resolve(rows: unknown[] | undefined): void;
  reject(error: unknown): void;
}

type Outcome = { ok: true; rows: unknown[] } | { ok: false; error: unknown };

export class ReadGroup implements GroupedReads {
  #queued: Read[] = [];

  constructor(
    /** The connection as it is when the group runs: undefined before it opens. */
    private readonly connection: () => CachingConnection | undefined,
    private readonly condition: StoreCondition,
  ) {}

  rows<R>(query: CompiledQuery<R>): Promise<R[] | undefined> {
    return new Promise<R[] | undefined>((resolve, reject) => {
      if (this.#queued.length === 0) setImmediate(() => this.#run());
      this.#queued.push({ query, resolve: resolve as Read['resolve'], reject });
    });
  }

  #run(): void {
    const reads = this.#queued;
    this.#queued = [];
    const opened = this.connection();
    if (!opened?.isOpen || opened.inTransaction) {
      for (const read of reads) read.resolve(undefined);
      return;
    }
    // One read is a transaction of its own already.
    const together = reads.length > 1;
    // Asked again each time: the statements below begin and end the transaction.
    const inTransaction = () => opened.inTransaction;
    const outcomes: Outcome[] = [];
    try {
      if (together) this.#statement(opened, 'begin');
      for (const { query } of reads) {
        try {
          outcomes.push({ ok: true, rows: selectOutsideKysely(opened, query, this.condition) });
        } catch (error) {
          outcomes.push({ ok: false, error });
          // A fault SQLite answered by ending the transaction: the reads after it would each be
          // a transaction of their own, and the commit would fail; they fail with it instead.
          if (together && !inTransaction()) throw error;
        }
      }
      if (together) this.#statement(opened, 'commit');
    } catch (error) {
      if (inTransaction()) {
        try {
          opened.prepare('rollback').run();
        } catch {
          // The connection is left as SQLite left it; the error below is the one to report.
        }
      }
      reads.forEach((read, index) => {
        const outcome = outcomes[index];
        if (outcome?.ok === false) read.reject(outcome.error);
        else read.reject(error);
      });
      return;
    }
    reads.forEach((read, index) => {
      const outcome = present(outcomes[index], `the outcome of read ${index}`);
      if (outcome.ok) read.resolve(outcome.rows);
      else read.reject(outcome.error);
    });
  }

  #statement(opened: CachingConnection, sql: 'begin' | 'commit'): void {
    readTranslated(() => opened.prepare(sql).run(), sqliteFault, this.condition);
  }
}
