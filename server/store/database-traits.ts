/**
 * The repositories are written once, in the SQL that SQLite and PostgreSQL
 * share (Kysely). What differs between the two is here, and each database
 * gives its own: sqlite/traits.ts, postgres/traits.ts.
 */
import type { CompiledQuery, Expression, Kysely, RawBuilder, Transaction } from 'kysely';
import { ExternalIdTakenError, NameTakenError } from './records.js';
import type { Database } from './schema.js';

/** A database handle or an open transaction on it: repository queries run on either. */
export type Db = Kysely<Database> | Transaction<Database>;

export interface DatabaseTraits {
  readonly kind: 'sqlite' | 'postgres';
  /** How a boolean is bound: SQLite takes 0/1, PostgreSQL true/false. */
  bool(value: boolean): number | boolean;
  /** Whether an error is a unique-constraint violation. */
  isUniqueViolation(error: unknown): boolean;
  /**
   * Makes concurrent transactions that call it run one at a time, where the
   * database would otherwise let them interleave (PostgreSQL; SQLite has a
   * single writer already).
   */
  serialize(trx: Transaction<Database>, name: string): Promise<void>;
  /**
   * Given a database handle, the group commit that user updates and creations go through, or
   * undefined where each update commits on its own (each traits file says why).
   */
  commitGroup(db: Kysely<Database>, onCommit?: (writes: number) => void): GroupCommit | undefined;
  /** An aggregate: the JSON array of `[first, second]` of each row, in the order of `orderBy` (`[]` for none). */
  jsonPairs(first: Expression<unknown>, second: Expression<unknown>, orderBy: Expression<unknown>): RawBuilder<unknown>;
  /** A JSON value as read: SQLite answers its text, PostgreSQL's driver parses it. */
  fromJson(value: unknown): unknown;
}

/**
 * Reads that run at once on the connection, outside Kysely, where the database
 * has them (SQLite: sqlite/connection.ts). Kysely's way to a connection (its
 * executor, the connection's lock, the fault translation) costs a query several
 * µs of promises, about a fifth of the read of the caller's API key on every
 * request (BENCHMARKS.md). Taken only while no transaction is open, so that a
 * read is a transaction of its own, as through Kysely, and sees no transaction's
 * uncommitted writes; its faults are translated as every query's are.
 */
export interface ImmediateReads {
  /** The rows of `query` (a select), read now; undefined while a transaction holds the connection, or before it opens, for the caller to take Kysely's way, which waits its turn. */
  rows<R>(query: CompiledQuery<R>): R[] | undefined;
}

/**
 * Reads that arrive during one turn of the event loop and run together at the next, back to
 * back in one read transaction, outside Kysely, where the database has them (SQLite:
 * sqlite/read-group.ts). A read alone on SQLite's connection, after the turn's other work, cost
 * a rewrite's read of its user 17–22 µs, where the same read right after another took 5
 * (BENCHMARKS.md): a group pays the cold start and the transaction's locks once. A read runs
 * when its group does, never earlier than asked: it sees every commit before it, as through Kysely.
 */
export interface GroupedReads {
  /** The rows of `query` (a select), read with the turn's other reads; undefined where a transaction held the connection then, or it was not open, for the caller to take Kysely's way. */
  rows<R>(query: CompiledQuery<R>): Promise<R[] | undefined>;
}

/**
 * The mark of the database's last commit, read without a transaction, where the database keeps
 * one where it can be read so (SQLite's wal-index: sqlite/commit-marks.ts). Two equal marks mean
 * that nothing was committed between their reads, by this process or any other.
 */
export interface CommitMarks {
  /** The mark now; undefined when none can be read now, and then nothing may be taken as unchanged. */
  current(): Buffer | undefined;
}

/** Writes that commit together in one transaction (sqlite/commit-group.ts). */
export interface GroupCommit {
  /** Runs `work` in the next group's transaction; resolves once that transaction is committed. */
  run<T>(work: (trx: Transaction<Database>) => Promise<T>): Promise<T>;
  /**
   * Sets the next group's commit to run after what is set to run before it already (a read
   * group just asked), where none is set yet: the writes that those reads lead to, queued
   * meanwhile, commit in it rather than in the group after.
   */
  reserve(): void;
}

/**
 * Runs a write, turning a unique-constraint violation into NameTakenError for `field`, or,
 * where the violation is of an external id's key (migration 0013), ExternalIdTakenError.
 */
export async function uniqueName<T>(traits: DatabaseTraits, field: NameTakenError['field'], write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (traits.isUniqueViolation(error)) {
      throw /external_id_key/.test(violationOf(error)) ? new ExternalIdTakenError() : new NameTakenError(field);
    }
    throw error;
  }
}

/** What a database says a violation was of: SQLite names the column in its message, PostgreSQL the constraint. */
const violationOf = (error: unknown) => {
  const { message, constraint } = error as { message?: unknown; constraint?: unknown };
  return `${typeof message === 'string' ? message : ''} ${typeof constraint === 'string' ? constraint : ''}`;
};
