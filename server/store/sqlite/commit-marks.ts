/**
 * The mark of the database's last commit, read without a transaction: the header of SQLite's
 * wal-index, the `-shm` file beside the database, which every connection, of every process,
 * updates as it commits (https://www.sqlite.org/walformat.html, "The WAL-Index Header").
 *
 * A read transaction of its own costs a request two file locks on the `-shm` file (more after
 * a commit moved the log on), each a system call; under update_user's load the API key's read
 * took about 28 µs of CPU a request that way, one pread of the header a few (BENCHMARKS.md).
 * A commit always changes the header: it adds frames to the log (`mxFrame`), or starts the log
 * again with new salts, and counts itself (`iChange`). So when the header read now is the one
 * read before an earlier read of the database, nothing was committed in between, by this
 * connection or any other, and what that read found is still what is stored.
 *
 * SQLite writes the header's second copy, then its first; its readers take a header only when
 * both copies agree, and so does current(). Anything else (no log yet, another layout, a copy
 * being written, an error) gives no mark, and the caller reads the database itself.
 */
import { closeSync, openSync, readSync, realpathSync } from 'node:fs';
import type { CommitMarks } from '../database-traits.js';

/** One copy of the header: `WalIndexHdr`, 48 bytes; the file holds two, one after the other. */
const HEADER_BYTES = 48;
/** The layout this reads (`iVersion`, the header's first 32 bits, in the machine's byte order). */
const WAL_INDEX_VERSION = 3_007_000;
/** `isInit`: the header has been written since the file was created. */
const IS_INIT_OFFSET = 12;

/**
 * The commit marks of the database at `databasePath`, read from its `-shm` file. SQLite creates
 * it with a new database's first transaction, and removes it only when the last connection
 * closes: read it only while the database's own connection is open, and close it with that
 * connection, so that the file read is always the one in use.
 */
export function walIndexMarks(databasePath: string): CommitMarks & { close(): void } {
  let descriptor: number | undefined;
  let closed = false;
  const both = Buffer.alloc(2 * HEADER_BYTES);
  return {
    current() {
      if (closed) return undefined;
      try {
        // Beside the file itself, as SQLite puts it when the database's path is a link.
        descriptor ??= openSync(`${realpathSync(databasePath)}-shm`, 'r');
      } catch {
        // Not in WAL mode, or no wal-index yet: no mark, and the caller reads the database.
        return undefined;
      }
      try {
        if (readSync(descriptor, both, 0, both.length, 0) !== both.length) return undefined;
      } catch {
        return undefined;
      }
      const first = both.subarray(0, HEADER_BYTES);
      if (!first.equals(both.subarray(HEADER_BYTES))) return undefined;
      if (first.readUInt32LE(0) !== WAL_INDEX_VERSION && first.readUInt32BE(0) !== WAL_INDEX_VERSION) return undefined;
      if (first[IS_INIT_OFFSET] !== 1) return undefined;
      return Buffer.from(first);
    },
    close() {
      closed = true;
      if (descriptor !== undefined) closeSync(descriptor);
      descriptor = undefined;
    },
  };
}
