/** Which of SQLite's errors are faults of the moment (../faults.ts), by their extended result codes. */
import type { FaultClassifier } from '../faults.js';
import { SqliteError } from 'better-sqlite3';

export const sqliteFault: FaultClassifier = (error) => {
  if (!(error instanceof SqliteError)) return undefined;
  const code = error.code;
  if (code === 'SQLITE_FULL') return 'full';
  // Another process (npm run admin, a backup) has held the lock past the busy timeout.
  if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) return 'busy';
  // The file or its disk failed under the service: nothing a request did wrong.
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_CANTOPEN') || code.startsWith('SQLITE_READONLY')) return 'unreachable';
  return undefined;
};
