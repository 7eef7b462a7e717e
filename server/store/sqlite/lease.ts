/**
 * Who has a SQLite database open. Every process that opens the database (the
 * service, an admin command) holds a shared lock on a small file beside it,
 * `<database>-lease`, for as long as it keeps it open; `admin restore` takes
 * that lock exclusively, so it cannot replace a database under a running
 * service, and no service can open the database while a restore is under way.
 *
 * The lock is SQLite's own file lock (a POSIX advisory lock), which the
 * operating system drops when its process ends, by kill -9 too: unlike a pid
 * file it cannot go stale. SQLite also keeps the locks of two connections of
 * one process apart, so a test holding both sides in one process sees what
 * two processes would.
 */
import { readFileSync, statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';

export class DatabaseInUseError extends Error {
  override name = 'DatabaseInUseError';
}

export interface Lease {
  release(): void;
}

export const leaseFileOf = (databaseFile: string) => `${databaseFile}-lease`;

function isBusy(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === 'SQLITE_BUSY';
}

/** Opens the lease file and runs `lock` on it; the connection is the lease, closed when `lock` fails. */
function lockLeaseFile(databaseFile: string, waitMs: number, lock: (connection: BetterSqlite3.Database) => void): BetterSqlite3.Database {
  const connection = new BetterSqlite3(leaseFileOf(databaseFile), { timeout: waitMs });
  try {
    // A rollback-journal file whose one table gives a reader something to lock; the lock is the whole point.
    connection.exec('create table if not exists lease (purpose text)');
    lock(connection);
    return connection;
  } catch (error) {
    connection.close();
    throw error;
  }
}

/** The processes that hold a lock on the lease file, as /proc/locks tells them (Linux); empty elsewhere. */
export function leaseHolders(databaseFile: string): { pid: number; command: string }[] {
  try {
    const inode = statSync(leaseFileOf(databaseFile)).ino;
    const pids = new Set<number>();
    for (const line of readFileSync('/proc/locks', 'utf8').split('\n')) {
      // "1: POSIX  ADVISORY  READ 12345 08:01:1048602 1073741824 1073741824"
      const fields = line.trim().split(/\s+/);
      const device = fields.find((field) => /^[\da-f]+:[\da-f]+:\d+$/.test(field));
      const pid = Number(fields[4]);
      if (device?.split(':')[2] === String(inode) && Number.isSafeInteger(pid) && pid > 0) pids.add(pid);
    }
    return [...pids].map((pid) => ({ pid, command: commandOf(pid) }));
  } catch {
    return [];
  }
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '';
  }
}

/**
 * Held by whoever opens the database, until release(). Waits up to `waitMs`
 * for a restore under way to finish; past that, DatabaseInUseError.
 */
export function holdSharedLease(databaseFile: string, waitMs: number): Lease {
  let connection: BetterSqlite3.Database;
  try {
    connection = lockLeaseFile(databaseFile, waitMs, (opened) => {
      opened.exec('begin');
      opened.prepare('select count(*) from lease').get();
    });
  } catch (error) {
    if (!isBusy(error)) throw error;
    throw new DatabaseInUseError(
      `a restore of ${databaseFile} is under way (it holds ${leaseFileOf(databaseFile)}): start again once it has finished`,
    );
  }
  return { release: () => void connection.close() };
}

/**
 * Held alone, or refused at once with DatabaseInUseError naming the
 * processes that have the database open: for what must not run beside
 * anyone (admin restore).
 */
export function takeExclusiveLease(databaseFile: string): Lease {
  let connection: BetterSqlite3.Database;
  try {
    connection = lockLeaseFile(databaseFile, 0, (opened) => opened.exec('begin exclusive'));
  } catch (error) {
    if (!isBusy(error)) throw error;
    const holders = leaseHolders(databaseFile).filter((holder) => holder.pid !== process.pid);
    const named = holders.map((holder) => `process ${holder.pid}${holder.command ? ` (${holder.command})` : ''}`).join(', ');
    throw new DatabaseInUseError(
      `${databaseFile} is open${named ? ` in ${named}` : ' in another process, or in this one'}: ` +
        'a running service (or another admin command) holds it; stop it first, then run this again',
    );
  }
  return { release: () => void connection.close() };
}
