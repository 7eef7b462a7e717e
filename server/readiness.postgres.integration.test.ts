/**
 * Readiness while the database migrates, as a load balancer sees it. On
 * PostgreSQL a migration waits for the lock another instance holds, which
 * makes "migrating" last exactly as long as the test wants.
 */
import { kasmMembers } from './testing/error-bodies.js';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { MIGRATION_LOCK } from './store/postgres/connection.js';
import { createTestDatabase } from './testing/database.js';
import { startServiceProcess } from '../lib/testing/service-process.js';
import { SERVICE_COMMAND } from '../lib/testing/commands.js';

describe('a service whose database is migrating (PostgreSQL)', () => {
  it('is alive but not ready, holds other requests, and is ready once the migration is done', async (t) => {
    const database = await createTestDatabase();
    const otherInstance = new pg.Client({ connectionString: database.url });
    await otherInstance.connect();
    await otherInstance.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    const service = await startServiceProcess({ DATABASE_URL: database.url }, SERVICE_COMMAND, { until: 'listening' });
    // In this order: the service and the other instance leave before the database goes.
    t.after(async () => {
      await service.stop('SIGKILL');
      await otherInstance.end();
      await database.drop();
    });
    const live = await fetch(`${service.url}/healthz`);
    assert.deepEqual({ status: live.status, body: await live.json() }, { status: 200, body: { status: 'ok' } });
    const starting = await fetch(`${service.url}/readyz`);
    assert.deepEqual(
      { status: starting.status, body: kasmMembers((await starting.json()) as Record<string, unknown>) },
      { status: 503, body: { error_message: 'Not ready: starting (migrating the database)', code: 'not_ready' } },
    );

    let answered = false;
    const held = fetch(`${service.url}/openapi.json`).then((response) => {
      answered = true;
      return response.status;
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(answered, false, 'a request waits while the database migrates');

    await otherInstance.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    assert.equal(await held, 200);
    for (let tries = 0; ; tries++) {
      const ready = await fetch(`${service.url}/readyz`);
      if (ready.status === 200) break;
      assert.ok(tries < 100, 'ready within 10 s of the migration lock being free');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.match(service.stdout(), /"msg":"workspace service ready"/);
  });
});
