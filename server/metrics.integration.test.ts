/**
 * /metrics as an operator scrapes it: every family the service promises, with
 * values that move when traffic moves, on a listener of its own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestDatabase, TEST_STORE } from './testing/database.js';
import { startServiceProcess } from '../lib/testing/service-process.js';
import { startTestService, type TestService } from './testing/service.js';
import { freePort } from '../lib/testing/ports.js';
import { MAX_CONCURRENT_HASHES } from './password/hashing.js';

/** One sample's value from Prometheus text, or undefined when the series is absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe(`metrics (${TEST_STORE})`, () => {
  let service: TestService;
  before(async () => {
    service = await startTestService({ metrics: true, authThrottle: { maxFailures: 2, windowSeconds: 60 } });
  });
  after(() => service.close());
  const scrape = () => service.metrics!.registry.metrics();

  it('counts requests by operation and status, times them, and counts credential failures and throttled requests', async () => {
    const before = await scrape();
    const created = 'workspace_requests_total{operation="createUser",status="200"}';
    await service.createUser({ password: 'Correct-Horse-42' });
    await service.createUser();
    const wrong = { api_key: service.admin.api_key, api_key_secret: 'wrong' };
    const failures = [];
    for (let attempt = 0; attempt < 3; attempt++) failures.push((await service.call('get_groups', wrong)).status);
    assert.deepEqual(failures, [401, 401, 429]);
    await service.request('/nowhere');
    // Refused by the contract before any handler runs: still counted under their operation.
    await service.callAsAdmin('update_user', { target_user: { user_id: 'not-an-id' } });
    await service.request('/api/public/update_user', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: '{}' });

    const after = await scrape();
    assert.equal(sample(after, 'workspace_requests_total{operation="updateUser",status="400"}'), 1);
    assert.equal(sample(after, 'workspace_requests_total{operation="updateUser",status="415"}'), 1);
    assert.equal((sample(after, created) ?? 0) - (sample(before, created) ?? 0), 2);
    assert.equal(sample(after, 'workspace_requests_total{operation="getGroups",status="401"}'), 2);
    assert.equal(sample(after, 'workspace_requests_total{operation="getGroups",status="429"}'), 1);
    assert.equal(sample(after, 'workspace_requests_total{operation="none",status="404"}'), 1, 'a path of no operation');
    assert.equal(sample(after, 'workspace_credential_failures_total'), 2);
    assert.equal(sample(after, 'workspace_throttled_requests_total'), 1);
    assert.ok((sample(after, 'workspace_request_duration_seconds_count{operation="createUser"}') ?? 0) >= 2);
    assert.ok(sample(after, 'workspace_request_duration_seconds_bucket{le="+Inf",operation="createUser"}')! >= 2);
  });

  it('labels each SCIM request with its operation, its refusals too', async () => {
    const bearer = { Authorization: `Bearer ${service.admin.api_key}.${service.admin.api_key_secret}` };
    const user = await service.createUser();
    await service.request('/scim/v2/Users?count=1', { headers: bearer });
    await service.request(`/scim/v2/Users/${user.user_id}`, { headers: bearer });
    await service.request(`/scim/v2/Users/${user.user_id}`, {
      method: 'PATCH',
      headers: { ...bearer, 'Content-Type': 'application/scim+json' },
      body: JSON.stringify({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: 'active', value: false }],
      }),
    });
    await service.request('/scim/v2/Groups?count=nope', { headers: bearer });

    const after = await scrape();
    assert.equal(sample(after, 'workspace_requests_total{operation="scimListUsers",status="200"}'), 1);
    assert.equal(sample(after, 'workspace_requests_total{operation="scimGetUser",status="200"}'), 1);
    assert.equal(sample(after, 'workspace_requests_total{operation="scimPatchUser",status="200"}'), 1);
    assert.equal(
      sample(after, 'workspace_requests_total{operation="scimListGroups",status="400"}'),
      1,
      'refused by the contract, counted under it',
    );
    assert.ok((sample(after, 'workspace_request_duration_seconds_count{operation="scimPatchUser"}') ?? 0) >= 1);
  });

  it('shows password hashing, group commits or the connection pool, and the process', async (t) => {
    // A service of its own: the one above has throttled this client.
    const service = await startTestService({ metrics: true });
    t.after(() => service.close());
    const scrape = () => service.metrics!.registry.metrics();
    const user = await service.createUser();
    await Promise.all(
      Array.from({ length: 5 }, (_, index) =>
        service.callAsAdmin('update_user', { target_user: { user_id: user.user_id, organization: `org-${index}` } }),
      ),
    );
    // Password changes at once: hashes run (at most half the cores at a time) and the rest wait.
    const changes = Promise.all(
      Array.from({ length: MAX_CONCURRENT_HASHES * 2 + 2 }, (_, index) =>
        service.callAsAdmin('update_user', { target_user: { user_id: user.user_id, password: `Correct-Horse-${index}!` } }),
      ),
    );
    let busiest = { active: 0, queued: 0 };
    for (let tries = 0; tries < 200 && busiest.queued === 0; tries++) {
      const during = await scrape();
      busiest = {
        active: sample(during, 'workspace_password_hashes_in_flight')!,
        queued: sample(during, 'workspace_password_hashes_queued')!,
      };
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.ok(busiest.active >= 1 && busiest.queued >= 1, `hashes seen running and waiting: ${JSON.stringify(busiest)}`);
    assert.ok((await changes).every((answer) => answer.status === 200));
    const text = await scrape();
    assert.equal(sample(text, 'workspace_password_hashes_in_flight'), 0, 'no hash running now');
    assert.equal(sample(text, 'workspace_password_hashes_queued'), 0);
    if (TEST_STORE === 'sqlite') {
      assert.ok((sample(text, 'workspace_group_commit_writes_count') ?? 0) >= 1, 'updates went through group commit');
      assert.ok((sample(text, 'workspace_group_commit_writes_sum') ?? 0) >= 5);
    } else {
      assert.ok((sample(text, 'workspace_db_pool_connections{state="total"}') ?? 0) >= 1, 'the pool has connections');
      assert.notEqual(sample(text, 'workspace_db_pool_connections{state="waiting"}'), undefined);
    }
    assert.ok((sample(text, 'process_resident_memory_bytes') ?? 0) > 0);
    assert.match(text, /^nodejs_eventloop_lag_seconds /m);
  });
});

describe(`the metrics listener of npm start (${TEST_STORE})`, () => {
  it('serves /metrics on METRICS_PORT only, never on the public port, and not at all without it', async (t) => {
    const database = await createTestDatabase();
    t.after(() => database.drop());
    const metricsPort = await freePort();
    const service = await startServiceProcess({ DATABASE_URL: database.url, METRICS_PORT: String(metricsPort) });
    t.after(() => service.stop('SIGTERM'));
    await fetch(`${service.url}/healthz`);
    const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(scraped.status, 200);
    assert.match(scraped.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(await scraped.text(), /^workspace_requests_total\{operation="getHealth",status="200"\} 1$/m);
    assert.equal((await fetch(`${service.url}/metrics`)).status, 404, 'not on the public port');
    assert.equal((await fetch(`http://127.0.0.1:${metricsPort}/other`)).status, 404);
    assert.equal(await service.stop('SIGTERM'), 0);

    const without = await startServiceProcess({ DATABASE_URL: database.url });
    t.after(() => without.stop('SIGTERM'));
    assert.doesNotMatch(without.stdout(), /metrics listening/);
    await assert.rejects(fetch(`http://127.0.0.1:${metricsPort}/metrics`), 'nothing listens there without METRICS_PORT');
  });
});
