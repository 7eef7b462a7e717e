/**
 * How long the service waits on its database before it answers 503 instead
 * (docs/operations.md, "When the database fails"). A few seconds each: a
 * request that cannot be served soon is better refused, with `Retry-After`,
 * than left hanging while clients and load balancers time out on their own.
 */
export interface DatabaseTimeouts {
  /** PostgreSQL: waiting for a connection, a new one or a free one of the pool (DATABASE_CONNECT_TIMEOUT_MS). */
  connectMs: number;
  /**
   * PostgreSQL: how long one statement may run (`statement_timeout`), and how long a
   * transaction may sit idle (`idle_in_transaction_session_timeout`); a statement the
   * server does not answer at all (frozen, a cable pulled) is given up a second later
   * (DATABASE_STATEMENT_TIMEOUT_MS).
   */
  statementMs: number;
  /** Waiting for a lock another writer holds: SQLite's `busy_timeout`, PostgreSQL's `lock_timeout` (DATABASE_LOCK_TIMEOUT_MS). */
  lockMs: number;
}

export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 3_000, statementMs: 5_000, lockMs: 1_000 };

/** How much longer than the server's own statement timeout the client waits before it gives up on an answer. */
export const UNANSWERED_GRACE_MS = 1_000;
