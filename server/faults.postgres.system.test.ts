/**
 * PostgreSQL failing under write load, as an operator meets it: a routine
 * restart, an administrator ending every connection, a server that freezes
 * without a word. Through each, the service stays up, answers every request in
 * bounded time (503 with Retry-After while the database is away, never a 500),
 * keeps /healthz answering and /readyz honest, recovers by itself, and loses no
 * acknowledged write.
 *
 * The cluster is this test's own (lib/testing/postgres-cluster.ts): restarting
 * or freezing the one the other tests share would fail them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { assertPresent, needs } from '../lib/testing/external-tools.js';
import { type PostgresCluster, postgresTool, startPostgresCluster } from '../lib/testing/postgres-cluster.js';
import { type Answer, startTestService, type TestService } from './testing/service.js';

const TIMEOUTS = { connectMs: 1_000, statementMs: 1_000, lockMs: 500 };
/** The longest any request may take while the database is away: a connection's wait, then a statement's, with room. */
const BOUND_MS = TIMEOUTS.connectMs + TIMEOUTS.statementMs + 1_000 + 1_500;
const WRITERS = 8;

interface Load {
  /** Per writer: the highest version acknowledged with a 200. */
  acknowledged: number[];
  statuses: Map<number, number>;
  /** Answers that broke the rules: a status other than 200 or 503, a 503 without Retry-After, a slow answer. */
  wrong: string[];
  stop(): Promise<void>;
}

async function timed(call: () => Promise<Answer>): Promise<{ answer: Answer; ms: number }> {
  const started = performance.now();
  const answer = await call();
  return { answer, ms: performance.now() - started };
}

/** Each writer updates its own user again and again, version after version. */
function writeLoad(service: TestService, userIds: string[]): Load {
  const load: Load = { acknowledged: userIds.map(() => 0), statuses: new Map(), wrong: [], stop: async () => {} };
  let running = true;
  const writers = userIds.map(async (user_id, writer) => {
    for (let version = 1; running; version++) {
      const { answer, ms } = await timed(() => service.callAsAdmin('update_user', { target_user: { user_id, first_name: `v${version}` } }));
      load.statuses.set(answer.status, (load.statuses.get(answer.status) ?? 0) + 1);
      if (answer.status === 200) load.acknowledged[writer] = version;
      else if (answer.status !== 503) load.wrong.push(`${answer.status} ${answer.text.slice(0, 200)}`);
      else if (!/^\d+$/.test(answer.headers.get('retry-after') ?? '')) load.wrong.push(`503 without Retry-After: ${answer.text}`);
      else if (!['unavailable', 'database_busy'].includes(answer.body.code)) load.wrong.push(`503 ${answer.text}`);
      if (ms > BOUND_MS) load.wrong.push(`${answer.status} after ${Math.round(ms)} ms`);
      // Back off a little on 503, as a client honouring Retry-After would (but faster).
      if (answer.status === 503) await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });
  load.stop = async () => {
    running = false;
    await Promise.all(writers);
  };
  return load;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until /readyz answers 200 again, by itself. */
async function untilReady(service: TestService, withinMs: number): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if ((await service.request('/readyz')).status === 200) return;
    await sleep(100);
  }
  assert.fail(`not ready again within ${withinMs} ms`);
}

describe('PostgreSQL failing under write load', needs(postgresTool(), 'the PostgreSQL fault tests'), () => {
  let cluster: PostgresCluster;
  let service: TestService;
  let userIds: string[];

  before(async () => {
    assertPresent(postgresTool());
    cluster = await startPostgresCluster({ maxConnections: 30 });
    service = await startTestService({ databaseUrl: cluster.url, databaseTimeouts: TIMEOUTS });
    userIds = [];
    for (let i = 0; i < WRITERS; i++) userIds.push((await service.createUser()).user_id);
  });

  after(async () => {
    cluster?.thaw();
    await service?.close();
    cluster?.remove();
  });

  /** Runs `fault` under the write load, then checks the answers, the recovery and every acknowledged write. */
  async function underLoad(fault: () => Promise<void>): Promise<Load> {
    const load = writeLoad(service, userIds);
    await sleep(300);
    await fault();
    await untilReady(service, 15_000);
    await sleep(300);
    await load.stop();
    assert.deepEqual(load.wrong, [], 'every answer a 200 or a 503 with Retry-After, in time');
    assert.ok((load.statuses.get(200) ?? 0) > 0, 'writes went through before and after');
    // Each writer's last acknowledged version (or a later one, whose 503 came after it committed) is stored.
    for (const [writer, user_id] of userIds.entries()) {
      const { body } = await service.callAsAdmin('get_user', { target_user: { user_id } });
      assert.ok(Number(body.user.first_name.slice(1)) >= load.acknowledged[writer]!, `writer ${writer}: ${body.user.first_name}`);
    }
    return load;
  }

  it('a restart (pg_ctl restart -m fast): 503 with Retry-After meanwhile, then 200 again, nothing acknowledged lost', async () => {
    const load = await underLoad(async () => cluster.restart());
    assert.ok((load.statuses.get(503) ?? 0) > 0, `the restart was noticed: ${JSON.stringify([...load.statuses])}`);
  });

  it('every connection ended by an administrator (pg_terminate_backend): the process stays up and recovers', async () => {
    await underLoad(async () => {
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      const { rows } = await admin.query<{ ended: boolean }>(
        'select pg_terminate_backend(pid) as ended from pg_stat_activity where backend_type = $1 and pid <> pg_backend_pid()',
        ['client backend'],
      );
      await admin.end();
      // The service's connections were there to end, and were ended.
      assert.ok(rows.filter((row) => row.ended).length >= 2, `ended ${rows.filter((row) => row.ended).length} connections`);
    });
  });

  it('a server out of connections: 503 database_busy with Retry-After, /readyz not ready, and both well again once connections free up', async () => {
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    // The service's own connections go first, so that it must ask for new ones.
    await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where backend_type = $1 and pid <> pg_backend_pid()', [
      'client backend',
    ]);
    const fillers: pg.Client[] = [admin];
    for (;;) {
      const filler = new pg.Client({ connectionString: cluster.url });
      filler.on('error', () => {});
      try {
        await filler.connect();
        fillers.push(filler);
      } catch (error) {
        assert.match((error as Error).message, /too many clients/);
        break;
      }
    }
    try {
      const refused = await service.callAsAdmin('get_user', { target_user: { user_id: userIds[0]! } });
      assert.equal(refused.status, 503, refused.text);
      assert.equal(refused.body.code, 'database_busy');
      assert.equal(refused.headers.get('retry-after'), '1');
      const readiness = await service.request('/readyz');
      assert.deepEqual([readiness.status, readiness.body.error_message], [503, 'Not ready: the database is busy']);
    } finally {
      await Promise.all(fillers.map((filler) => filler.end().catch(() => {})));
    }
    await untilReady(service, 5_000);
    assert.equal((await service.callAsAdmin('get_user', { target_user: { user_id: userIds[0]! } })).status, 200);
  });

  it('a frozen server (SIGSTOP): requests get 503 in bounded time, /healthz answers at once, /readyz says not ready, then all recover', async () => {
    const load = await underLoad(async () => {
      cluster.freeze();
      try {
        await sleep(TIMEOUTS.statementMs + 1_500);
        const health = await timed(() => service.request('/healthz'));
        assert.equal(health.answer.status, 200);
        assert.ok(health.ms < 1_000, `/healthz took ${health.ms} ms`);
        const readiness = await timed(() => service.request('/readyz'));
        assert.equal(readiness.answer.status, 503);
        assert.equal(readiness.answer.body.code, 'not_ready');
        assert.ok(readiness.ms < 1_500, `/readyz took ${readiness.ms} ms`);
      } finally {
        cluster.thaw();
      }
    });
    assert.ok((load.statuses.get(503) ?? 0) > 0, `the freeze was noticed: ${JSON.stringify([...load.statuses])}`);
  });
});
