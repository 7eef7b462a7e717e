import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { readTranslated, StoreCondition, StoreUnavailableError } from './faults.js';
import { postgresFault } from './postgres/faults.js';
import { SqliteError } from 'better-sqlite3';
import { sqliteFault } from './sqlite/faults.js';

const postgresError = (code: string) => Object.assign(new pg.DatabaseError('message', 0, 'error'), { code });
const systemError = (code: string) => Object.assign(new Error(`connect ${code} 127.0.0.1:5432`), { code });

describe('database faults', () => {
  it("PostgreSQL's: lost and refused connections, timeouts, shutdowns, a full disk; not a refused constraint or a bug", () => {
    assert.equal(postgresFault(new Error('Connection terminated unexpectedly')), 'unreachable');
    assert.equal(postgresFault(new Error('timeout exceeded when trying to connect')), 'unreachable');
    assert.equal(postgresFault(new Error('Query read timeout')), 'unreachable');
    assert.equal(postgresFault(systemError('ECONNREFUSED')), 'unreachable');
    assert.equal(postgresFault(postgresError('57P01')), 'unreachable');
    assert.equal(postgresFault(postgresError('08006')), 'unreachable');
    assert.equal(postgresFault(postgresError('53300')), 'busy');
    assert.equal(postgresFault(postgresError('57014')), 'busy');
    assert.equal(postgresFault(postgresError('53100')), 'full');
    assert.equal(postgresFault(postgresError('23505')), undefined);
    assert.equal(postgresFault(postgresError('42P01')), undefined);
    assert.equal(postgresFault(new TypeError('Cannot read properties of undefined')), undefined);
  });

  it("SQLite's: locked, full, failing files; not a refused constraint", () => {
    assert.equal(sqliteFault(new SqliteError('database is locked', 'SQLITE_BUSY')), 'busy');
    assert.equal(sqliteFault(new SqliteError('database is locked', 'SQLITE_BUSY_SNAPSHOT')), 'busy');
    assert.equal(sqliteFault(new SqliteError('database or disk is full', 'SQLITE_FULL')), 'full');
    assert.equal(sqliteFault(new SqliteError('disk I/O error', 'SQLITE_IOERR_WRITE')), 'unreachable');
    assert.equal(sqliteFault(new SqliteError('UNIQUE constraint failed', 'SQLITE_CONSTRAINT_UNIQUE')), undefined);
    assert.equal(sqliteFault(new Error('SQLITE_FULL')), undefined);
  });

  it('a read run outside Kysely: its faults become StoreUnavailableError, observed; other errors pass as they were', () => {
    const condition = new StoreCondition(() => 0);
    const full = new SqliteError('database or disk is full', 'SQLITE_FULL');
    assert.throws(
      () =>
        readTranslated(
          () => {
            throw full;
          },
          sqliteFault,
          condition,
        ),
      (error: unknown) => error instanceof StoreUnavailableError && error.kind === 'full' && error.cause === full,
    );
    assert.equal(condition.isFull(30_000), true);
    const bug = new TypeError('not a fault');
    assert.throws(
      () =>
        readTranslated(
          () => {
            throw bug;
          },
          sqliteFault,
          condition,
        ),
      (error: unknown) => error === bug,
    );
    assert.deepEqual(
      readTranslated(() => [1], sqliteFault, condition),
      [1],
    );
  });

  it('a store found full stays so until a write succeeds or the memory runs out; a read clears nothing', () => {
    let now = 0;
    const condition = new StoreCondition(() => now);
    assert.equal(condition.isFull(30_000), false);
    condition.observe('full');
    now = 29_999;
    assert.equal(condition.isFull(30_000), true);
    condition.observe('busy');
    assert.equal(condition.isFull(30_000), true);
    now = 30_000;
    assert.equal(condition.isFull(30_000), false, 'forgotten after 30 s, so that traffic comes back to try');
    condition.observe('full');
    condition.observe('written');
    assert.equal(condition.isFull(30_000), false, 'a write went through: there is space again');
  });
});
