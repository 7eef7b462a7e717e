/**
 * better-sqlite3, in the major version that is safe on the running Node
 * (docs/decisions.md #18):
 *
 * - Node 22 and later: better-sqlite3 13, a Node-API build that ships its
 *   binaries. Version 12 subclasses Node's raw ObjectWrap, whose destructor
 *   asserts on Node 24.19 and later whenever the garbage collector finalizes
 *   a statement outside JavaScript: the process aborts, at exit or mid-run.
 * - Node 20: better-sqlite3 12 (installed as `better-sqlite3-node20`), built
 *   from source for that Node. Version 13 needs Node-API 10, which Node 20
 *   lacks, and crashes on its first statement there.
 *
 * Both have the same API; everything else imports the driver from here.
 */
import { createRequire } from 'node:module';
import type BetterSqlite3Module from 'better-sqlite3';

const require = createRequire(import.meta.url);

/** The Node major from which better-sqlite3 13 is used. */
export const NODE_API_DRIVER_FROM = 22;

const nodeMajor = Number(process.versions.node.split('.')[0]);

/** Which package this Node loads: for the Node matrix's check and for messages. */
export const SQLITE_DRIVER_PACKAGE = nodeMajor >= NODE_API_DRIVER_FROM ? 'better-sqlite3' : 'better-sqlite3-node20';

const driver = require(SQLITE_DRIVER_PACKAGE) as typeof BetterSqlite3Module;

/** The better-sqlite3 module this Node loads: `new SqliteLibrary(path)` opens a database. */
export const SqliteLibrary: typeof BetterSqlite3Module = driver;
export const SqliteError: typeof BetterSqlite3Module.SqliteError = driver.SqliteError;
