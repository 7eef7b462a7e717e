/**
 * Who has a PostgreSQL database open, as sqlite/lease.ts tells it for a
 * SQLite file: every process that opens the store (each service instance,
 * each admin command) holds a shared advisory lock on a connection of its
 * own for as long as it keeps the store open; `admin restore` takes that lock
 * exclusively, so it cannot restore under a running instance, and no instance
 * can open the database while a restore is under way.
 *
 * An advisory lock belongs to its connection: PostgreSQL drops it when the
 * holder's process dies or its connection ends, so it cannot go stale. Should
 * the connection be lost while the store stays open (the server restarted),
 * the holder takes the lock again on a new one.
 */
import pg from 'pg';
import { DatabaseInUseError, type Lease } from '../sqlite/lease.js';
import { DEFAULT_DATABASE_TIMEOUTS, type DatabaseTimeouts, UNANSWERED_GRACE_MS } from '../timeouts.js';

/** Arbitrary but fixed, beside MIGRATION_LOCK: the advisory lock of the database lease. */
export const LEASE_LOCK = 7_316_400_513;
/** What the instances' lease connections call themselves in pg_stat_activity. */
export const LEASE_APPLICATION_NAME = 'workspace-user-api lease';
/** How soon a lost lease connection is replaced. */
const RETAKE_MS = 1_000;

/** PostgreSQL's "lock_not_available", which lock_timeout raises. */
const LOCK_NOT_AVAILABLE = '55P03';

/** Bounded like every other connection of the store (timeouts.ts): a frozen server never holds a start or a close. */
async function connected(url: string, timeouts: DatabaseTimeouts): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: url,
    application_name: LEASE_APPLICATION_NAME,
    keepAlive: true,
    connectionTimeoutMillis: timeouts.connectMs,
    query_timeout: Math.max(timeouts.lockMs, timeouts.statementMs) + UNANSWERED_GRACE_MS,
  });
  // An 'error' with no listener would end the process: a lost connection is handled on 'end'.
  client.on('error', () => {});
  await client.connect();
  return client;
}

/**
 * Resolves once the shared lock is held. Waits up to `waitMs` for a restore
 * under way; past that, DatabaseInUseError.
 */
export async function holdPostgresLease(url: string, name: string, timeouts: DatabaseTimeouts): Promise<Lease> {
  let released = false;
  let client: pg.Client | undefined;
  let retake: NodeJS.Timeout | undefined;

  async function take(): Promise<void> {
    const opened = await connected(url, timeouts);
    try {
      await opened.query(`set lock_timeout = ${Math.max(1, Math.trunc(timeouts.lockMs))}`);
      await opened.query('select pg_advisory_lock_shared($1)', [LEASE_LOCK]);
    } catch (error) {
      await opened.end().catch(() => {});
      if ((error as { code?: unknown }).code === LOCK_NOT_AVAILABLE)
        throw new DatabaseInUseError(`a restore of ${name} is under way: start again once it has finished`);
      throw error;
    }
    // Released while this was taken again: let it go at once.
    if (released) return void opened.end().catch(() => {});
    client = opened;
    opened.once('end', () => {
      if (released) return;
      client = undefined;
      const again = () => {
        if (released) return;
        take().catch(() => {
          retake = setTimeout(again, RETAKE_MS).unref();
        });
      };
      retake = setTimeout(again, RETAKE_MS).unref();
    });
  }

  await take();
  return {
    release() {
      released = true;
      clearTimeout(retake);
      void client?.end().catch(() => {});
    },
  };
}

/** The lease's holders as PostgreSQL sees them: process ids, addresses and since when. */
async function holdersOf(client: pg.Client): Promise<string[]> {
  const { rows } = await client.query<{ pid: number; address: string | null; since: Date }>(
    `select a.pid, host(a.client_addr) as address, a.backend_start as since
       from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and l.database = (select oid from pg_database where datname = current_database())
        and (l.classid::bigint << 32) + l.objid::bigint = $1 and l.pid <> pg_backend_pid()`,
    [LEASE_LOCK],
  );
  return rows.map(
    (row) => `a process connected from ${row.address ?? 'a local socket'} since ${row.since.toISOString()} (backend ${row.pid})`,
  );
}

/**
 * Held alone, or refused at once with DatabaseInUseError naming the
 * connections that hold the database open: for admin restore.
 */
export async function takeExclusivePostgresLease(url: string, name: string): Promise<Lease> {
  const client = await connected(url, DEFAULT_DATABASE_TIMEOUTS);
  try {
    const { rows } = await client.query<{ taken: boolean }>('select pg_try_advisory_lock($1) as taken', [LEASE_LOCK]);
    if (!rows[0]?.taken) {
      const holders = await holdersOf(client);
      throw new DatabaseInUseError(
        `${name} is open in ${holders.length > 0 ? holders.join(', ') : 'another process'}: ` +
          'a running service instance (or an admin command) holds it; stop every instance first, then run this again',
      );
    }
  } catch (error) {
    await client.end().catch(() => {});
    throw error;
  }
  return { release: () => void client.end().catch(() => {}) };
}
