import { kasmMembers } from './testing/error-bodies.js';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { present } from '../lib/present.js';
import { PERMISSIONS } from '../lib/contract/operations.js';
import { createTestDatabase, TEST_STORE } from './testing/database.js';
import { startServiceProcess } from '../lib/testing/service-process.js';
import { SERVICE_COMMAND } from '../lib/testing/commands.js';

const post = async (url: string, body: unknown) => {
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as any };
};

describe('npm start', () => {
  let directory: string;
  before(async () => {
    directory = await mkdtemp(join(tmpdir(), 'workspace-main-'));
  });
  after(() => rm(directory, { recursive: true, force: true }));

  it(`without a terminal, puts a working all-permission key in a file only its user can read, on first start only, and stops cleanly on SIGTERM and SIGINT (${TEST_STORE})`, async (t) => {
    const database = await createTestDatabase();
    t.after(() => database.drop());
    const env = { DATABASE_URL: database.url };
    const first = await startServiceProcess(env);
    // A failed assertion before its stop would leave it running, and the test runner waiting on it.
    t.after(() => first.stop('SIGKILL'));
    const key = first.printedKey();
    assert.ok(key, `no key file named:\n${first.stdout()}`);
    assert.equal((await stat(first.firstKeyFile)).mode & 0o777, 0o600);
    assert.ok(!first.stdout().includes(key.api_key_secret), 'the secret is nowhere in the output');

    const checked = await post(`${first.url}/api/public/validate_credentials`, key);
    assert.equal(checked.status, 200);
    assert.deepEqual(checked.body.permissions, [...PERMISSIONS]);
    const created = await post(`${first.url}/api/public/create_user`, { ...key, target_user: { username: 'first@example.com' } });
    assert.equal(created.status, 200);
    const logLines = first
      .stdout()
      .split('\n')
      .filter((line) => line.startsWith('{"level"'));
    assert.ok(logLines.length >= 2);
    assert.ok(logLines.every((line) => !line.includes(key.api_key_secret)));
    assert.equal(await first.stop('SIGTERM'), 0);
    assert.match(first.stdout(), /"msg":"stopped"/);
    // The heap's settings it sets itself (server/heap.ts), named in its ready line for the operator.
    const ready = logLines
      .map((line) => JSON.parse(line) as { msg: string; heapFlags?: string[] })
      .find(({ msg }) => msg === 'workspace service ready');
    assert.deepEqual(ready?.heapFlags, ['--heap-growing-percent=50', '--no-allocation-site-pretenuring']);

    const second = await startServiceProcess(env);
    // A failed assertion before its stop would leave it running, and the test runner waiting on it.
    t.after(() => second.stop('SIGKILL'));
    assert.doesNotMatch(second.stdout(), /no API key existed/, 'a second start makes no new key');
    const stillThere = await post(`${second.url}/api/public/get_user`, { ...key, target_user: { username: 'first@example.com' } });
    assert.equal(stillThere.status, 200);
    assert.equal(await second.stop('SIGINT'), 0);
  });

  it(`on SIGTERM stops being ready at once, goes on serving for SHUTDOWN_DRAIN_SECONDS, then stops (${TEST_STORE})`, async (t) => {
    const database = await createTestDatabase();
    t.after(() => database.drop());
    const service = await startServiceProcess({ DATABASE_URL: database.url, SHUTDOWN_DRAIN_SECONDS: '2' });
    // A failed assertion before its stop would leave it running, and the test runner waiting on it.
    t.after(() => service.stop('SIGKILL'));
    const key = service.printedKey()!;
    const ready = await fetch(`${service.url}/readyz`);
    assert.deepEqual({ status: ready.status, body: await ready.json() }, { status: 200, body: { status: 'ready' } });

    const stopped = service.stop('SIGTERM');
    const signalled = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const draining = await fetch(`${service.url}/readyz`);
    assert.deepEqual(
      { status: draining.status, body: kasmMembers((await draining.json()) as Record<string, unknown>) },
      { status: 503, body: { error_message: 'Not ready: shutting down', code: 'not_ready' } },
    );
    assert.equal((await fetch(`${service.url}/healthz`)).status, 200, 'still alive while draining');
    assert.equal((await post(`${service.url}/api/public/validate_credentials`, key)).status, 200, 'still serving while draining');
    assert.equal(await stopped, 0);
    assert.ok(Date.now() - signalled >= 1_900, `stopped after ${Date.now() - signalled} ms, before the 2 s drain`);
    assert.match(service.stdout(), /"msg":"draining: not ready, still serving"/);
  });

  it(`runs compiled, as npm start does, without tsx (${TEST_STORE})`, async (t) => {
    // scripts/run-tests.ts builds before this tier, as npm start's prestart does.
    const database = await createTestDatabase();
    t.after(() => database.drop());
    const service = await startServiceProcess({ DATABASE_URL: database.url }, SERVICE_COMMAND);
    // A failed assertion before its stop would leave it running, and the test runner waiting on it.
    t.after(() => service.stop('SIGKILL'));
    const checked = await post(`${service.url}/api/public/validate_credentials`, service.printedKey());
    assert.equal(checked.status, 200);
    // The contract is found from server/dist/ too: it is what the validator and /openapi.json serve.
    const contract = (await (await fetch(`${service.url}/openapi.json`)).json()) as { info: { title: string } };
    assert.match(contract.info.title, /workspace/i);
    const invalid = await post(`${service.url}/api/public/get_user`, { ...service.printedKey(), target_user: {} });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body.code, 'invalid_request');
    assert.equal(await service.stop('SIGTERM'), 0);
  });

  it(`as the README says to run it in production, drains and exits 0 on SIGTERM (${TEST_STORE})`, async (t) => {
    // The README's production line, as an operator copies it into a supervisor: SIGTERM must reach
    // the service itself, which npm (`npm start`) does not pass on.
    const readme = await readFile(join(PROJECT_ROOT, 'README.md'), 'utf8');
    const line = present(/^NODE_ENV=production .*$/m.exec(readme)?.[0], "the README's production line");
    const words = line.split(/\s+/);
    const env = Object.fromEntries(words.filter((word) => /^[A-Z_]+=/.test(word)).map((word) => word.split('=') as [string, string]));
    const [program, ...command] = words.filter((word) => !/^[A-Z_]+=/.test(word));
    assert.equal(program, 'node', `${line}: the supervisor's signal must reach the service, not ${program}`);
    // node's own flags (the heap's, server/heap.ts), then the script and nothing after it.
    const nodeFlags = command.filter((word) => word.startsWith('--'));
    const [script, ...rest] = command.filter((word) => !word.startsWith('--'));
    assert.deepEqual([script, rest], [SERVICE_COMMAND, []]);
    const database = await createTestDatabase();
    t.after(() => database.drop());
    const service = await startServiceProcess(
      { ...env, NODE_OPTIONS: nodeFlags.join(' '), DATABASE_URL: database.url, SHUTDOWN_DRAIN_SECONDS: '1' },
      script,
    );
    // A failed assertion before its stop would leave it running, and the test runner waiting on it.
    t.after(() => service.stop('SIGKILL'));
    assert.equal(await service.stop('SIGTERM'), 0);
    assert.match(service.stdout(), /"msg":"draining: not ready, still serving"/);
    await assert.rejects(fetch(`${service.url}/healthz`), 'nothing listens after it');
  });
});
