/**
 * A database that cannot do its work right now (unreachable, frozen, out of
 * connections, locked, out of space) is a fault of the moment, not a bug:
 * the request gets 503 with `Retry-After` and may be sent again
 * (docs/operations.md, "When the database fails").
 *
 * Every query of a store goes through `withFaultTranslation`, which turns the
 * driver's own errors for such faults into one StoreUnavailableError naming
 * the kind, keeps the driver's error as its cause (for the log), and lets
 * every other error (a constraint refused, a bug) through as it was. Each
 * database says which of its errors are faults (sqlite/faults.ts, postgres/faults.ts).
 */
import type {
  CompiledQuery,
  DatabaseConnection,
  DatabaseIntrospector,
  Dialect,
  DialectAdapter,
  Driver,
  Kysely,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely';
import type { Database } from './schema.js';

/**
 * - `unreachable`: no connection, a connection lost, or no answer in time;
 * - `busy`: the database is there but refuses for now (locked by another writer, out of connections);
 * - `full`: no space left to write.
 */
export type StoreFaultKind = 'unreachable' | 'busy' | 'full';

export class StoreUnavailableError extends Error {
  override name = 'StoreUnavailableError';
  constructor(
    readonly kind: StoreFaultKind,
    options: { cause: unknown },
  ) {
    super(`the database is ${kind === 'unreachable' ? 'unreachable' : kind === 'busy' ? 'busy' : 'out of space'}`, options);
  }
}

/** Which fault an error of the driver is, or undefined when it is not one. */
export type FaultClassifier = (error: unknown) => StoreFaultKind | undefined;

/** How a store has fared lately, for readiness: the last write fault and when it happened. */
export class StoreCondition {
  #lastFull: number | undefined;

  constructor(private readonly now: () => number = Date.now) {}

  /** Told of every fault, and of every write that succeeded (a read succeeding says nothing of space). */
  observe(outcome: StoreFaultKind | 'written'): void {
    if (outcome === 'full') this.#lastFull = this.now();
    else if (outcome === 'written') this.#lastFull = undefined;
  }

  /**
   * Whether a write failed for want of space within `withinMs`, with no write
   * succeeding since: reading still works then, so a ping alone would call the
   * store ready.
   */
  isFull(withinMs: number): boolean {
    return this.#lastFull !== undefined && this.now() - this.#lastFull < withinMs;
  }
}

/** What a query's error is thrown as: a fault of the driver as StoreUnavailableError (observed by `condition`), any other as it was. */
function translated(error: unknown, classify: FaultClassifier, condition: StoreCondition): unknown {
  if (error instanceof StoreUnavailableError) return error;
  const kind = classify(error);
  if (kind === undefined) return error;
  condition.observe(kind);
  return new StoreUnavailableError(kind, { cause: error });
}

function translator(classify: FaultClassifier, condition: StoreCondition) {
  return async <T>(work: () => Promise<T>, writes = false): Promise<T> => {
    try {
      const result = await work();
      if (writes) condition.observe('written');
      return result;
    } catch (error) {
      throw translated(error, classify, condition);
    }
  };
}

/** Runs a read of the driver's at once, its faults translated as every query's are: for a query that runs outside Kysely (sqlite/connection.ts). */
export function readTranslated<T>(read: () => T, classify: FaultClassifier, condition: StoreCondition): T {
  try {
    return read();
  } catch (error) {
    throw translated(error, classify, condition);
  }
}

/** Statements that write. Inside a transaction the commit is what reaches the disk, and it is observed too. */
const WRITES = new Set(['InsertQueryNode', 'UpdateQueryNode', 'DeleteQueryNode', 'MergeQueryNode']);

class TranslatingConnection implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly translate: ReturnType<typeof translator>,
  ) {}

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    return this.translate(() => this.inner.executeQuery<R>(compiledQuery), WRITES.has(compiledQuery.query.kind));
  }

  async *streamQuery<R>(compiledQuery: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    const iterator = this.inner.streamQuery<R>(compiledQuery, chunkSize);
    for (;;) {
      const next = await this.translate(() => iterator.next());
      if (next.done) return;
      yield next.value;
    }
  }
}

class TranslatingDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly translate: ReturnType<typeof translator>,
  ) {}

  init(): Promise<void> {
    return this.translate(() => this.inner.init());
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new TranslatingConnection(await this.translate(() => this.inner.acquireConnection()), this.translate);
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.translate(() => this.inner.beginTransaction(innerOf(connection), settings));
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.translate(() => this.inner.commitTransaction(innerOf(connection)), true);
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.translate(() => this.inner.rollbackTransaction(innerOf(connection)));
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.inner.releaseConnection(innerOf(connection));
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

const innerOf = (connection: DatabaseConnection) => (connection instanceof TranslatingConnection ? connection.inner : connection);

/** The dialect, with every fault of its driver turned into a StoreUnavailableError and observed by `condition`. */
export function withFaultTranslation(dialect: Dialect, classify: FaultClassifier, condition: StoreCondition): Dialect {
  const translate = translator(classify, condition);
  return {
    createAdapter: (): DialectAdapter => dialect.createAdapter(),
    createDriver: (): Driver => new TranslatingDriver(dialect.createDriver(), translate),
    createIntrospector: (db: Kysely<Database>): DatabaseIntrospector => dialect.createIntrospector(db),
    createQueryCompiler: (): QueryCompiler => dialect.createQueryCompiler(),
  };
}
