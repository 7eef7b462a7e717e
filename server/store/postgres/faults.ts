/** Which of PostgreSQL's errors are faults of the moment (../faults.ts), by SQLSTATE and by what pg throws when a connection fails. */
import pg from 'pg';
import type { FaultClassifier, StoreFaultKind } from '../faults.js';

/** SQLSTATE codes (PostgreSQL's appendix A) that a retry may get past. */
const BY_SQLSTATE: Record<string, StoreFaultKind> = {
  '57P01': 'unreachable', // admin_shutdown: a fast or immediate stop, pg_terminate_backend
  '57P02': 'unreachable', // crash_shutdown
  '57P03': 'unreachable', // cannot_connect_now: starting up or shutting down
  '25P03': 'unreachable', // idle_in_transaction_session_timeout
  '53300': 'busy', // too_many_connections
  '53200': 'busy', // out_of_memory
  '57014': 'busy', // query_canceled: the statement timeout
  '55P03': 'busy', // lock_not_available: the lock timeout
  '40001': 'busy', // serialization_failure
  '40P01': 'busy', // deadlock_detected
  '53100': 'full', // disk_full
};

/**
 * pg reports a connection that could not be made, was lost or did not answer
 * in time with a plain Error (or a system error such as ECONNREFUSED), never
 * with a SQLSTATE; these are its messages for them.
 */
const CONNECTION_FAILURE =
  /connection terminated|not queryable|timeout exceeded when trying to connect|query read timeout|connection timeout/i;

export const postgresFault: FaultClassifier = (error) => {
  if (error instanceof pg.DatabaseError) {
    const code = error.code ?? '';
    return BY_SQLSTATE[code] ?? (code.startsWith('08') ? 'unreachable' : undefined);
  }
  if (!(error instanceof Error)) return undefined;
  const systemCode = (error as NodeJS.ErrnoException).code;
  if (typeof systemCode === 'string' && /^E[A-Z]+$/.test(systemCode)) return 'unreachable';
  return CONNECTION_FAILURE.test(error.message) ? 'unreachable' : undefined;
};
