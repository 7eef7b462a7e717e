/**
 * The Python SDK (generated/python) against the real service with the
 * machine's python3: every operation of the contract and the error bodies of
 * each kind of failure, through the SDK's own classes; then `mypy --strict`
 * over the SDK and over a typed consumer (the driving script itself), and a
 * mistake that the type check must catch.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { OPERATIONS } from '../lib/contract/operations.js';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { freePort } from '../lib/testing/ports.js';
import { assertPresent, needs, TOOLS } from '../lib/testing/external-tools.js';
import { startTestService, type TestService } from '../server/testing/service.js';
import { signedHeaders } from '../server/webhooks/signature.js';

const run = promisify(execFile);
const python3 = TOOLS.python3();
const mypy = TOOLS.mypy();
const SDK = join(PROJECT_ROOT, 'generated/python');
const DRIVER = join(PROJECT_ROOT, 'contract-tests/python/drive_every_operation.py');

describe('the Python SDK', needs(python3, 'the Python SDK tests'), () => {
  let service: TestService;
  before(async () => {
    assertPresent(python3);
    service = await startTestService();
  });
  after(() => service.close());

  it('drives every operation of the contract against the real service, and reads every kind of error body', async () => {
    const group = await service.createGroup({ name: 'Engineering' });
    const limited = await service.createKey({ permissions: [] });
    const { stdout } = await run('python3', [DRIVER], {
      env: {
        ...process.env,
        PYTHONPATH: SDK,
        PYTHONDONTWRITEBYTECODE: '1',
        WORKSPACE_URL: service.baseUrl,
        WORKSPACE_API_KEY: service.admin.api_key,
        WORKSPACE_API_KEY_SECRET: service.admin.api_key_secret,
        LIMITED_API_KEY: limited.api_key,
        LIMITED_API_KEY_SECRET: limited.api_key_secret,
        GROUP_ID: group.group_id,
        CLOSED_URL: `http://127.0.0.1:${await freePort()}`,
      },
    });
    const { operations, codes } = JSON.parse(stdout.trim().split('\n').at(-1)!);
    // Every operation but the API and error references, pages for browsers that the SDK leaves out.
    const PAGES = ['getApiReference', 'getErrorReference'];
    // And the console's sessions (x-browser-only): a program calls with its key.
    const BROWSER_ONLY = ['signIn', 'getSession', 'signOut'];
    const everyOperation = OPERATIONS.filter(
      (operation) => operation.method !== 'head' && ![...PAGES, ...BROWSER_ONLY].includes(operation.operationId),
    ).map((operation) => operation.operationId);
    assert.deepEqual([...operations].sort(), [...everyOperation].sort());
    assert.deepEqual(codes, [
      'already_member',
      'api_key_not_found',
      'cursor_expired',
      'group_name_taken',
      'group_not_found',
      'invalid_attribute',
      'invalid_credentials',
      'invalid_cursor',
      'invalid_request',
      'invalid_webhook_url',
      'not_member',
      'permission_denied',
      'user_not_found',
      'username_taken',
      'version_mismatch',
      'weak_password',
      'webhook_not_found',
    ]);
  });
});

describe("the Python SDK's verify_webhook", needs(python3, 'the Python SDK tests'), () => {
  it('verifies with the standard library what the service signs, during a rotation too, and refuses forgeries', async () => {
    const secret = `whsec_${Buffer.from('a secret of twenty-four bytes').toString('base64')}`;
    const next = `whsec_${Buffer.from('the rotated secret, 24 bytes').toString('base64')}`;
    const body = JSON.stringify({
      event_id: 'evt-1',
      type: 'user.updated',
      timestamp: new Date().toISOString(),
      data: {
        resource: { type: 'user', id: 'a'.repeat(32), version: 3 },
        changed: ['disabled'],
        actor: { type: 'scim', id: 'key' },
        request_id: null,
      },
    });
    const now = new Date();
    const signed = signedHeaders({ current: secret, previous: null, previousUntil: null }, 'evt-1', now, body);
    const rotating = signedHeaders(
      { current: next, previous: secret, previousUntil: new Date(Date.now() + 60_000).toISOString() },
      'evt-1',
      now,
      body,
    );
    const old = signedHeaders({ current: secret, previous: null, previousUntil: null }, 'evt-1', new Date(Date.now() - 600_000), body);
    const cases = [
      { secret, body, headers: signed },
      { secret, body, headers: rotating },
      { secret: next, body, headers: rotating },
      { secret, body: body.replace('disabled', 'password'), headers: signed },
      { secret: next, body, headers: signed },
      { secret, body, headers: old },
    ];
    const child = execFile('python3', [join(PROJECT_ROOT, 'contract-tests/python/verify_webhooks.py')], {
      env: { ...process.env, PYTHONPATH: SDK, PYTHONDONTWRITEBYTECODE: '1' },
    });
    child.stdin!.end(JSON.stringify(cases));
    let stdout = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await once(child, 'exit');
    assert.deepEqual(stdout.trim().split('\n'), [
      `ok user.updated ${'a'.repeat(32)}`,
      `ok user.updated ${'a'.repeat(32)}`,
      `ok user.updated ${'a'.repeat(32)}`,
      'refused: no signature matches the secret',
      'refused: no signature matches the secret',
      'refused: webhook-timestamp is more than five minutes from now',
    ]);
  });
});

describe('the Python SDK retries', needs(python3, 'the Python SDK tests'), () => {
  it('waits what Retry-After asks, never retries a 400 nor create_user after a dropped connection, and stops at the deadline', async () => {
    assertPresent(python3);
    const { stdout } = await run('python3', [join(PROJECT_ROOT, 'contract-tests/python/retries.py')], {
      env: { ...process.env, PYTHONPATH: SDK, PYTHONDONTWRITEBYTECODE: '1' },
    });
    assert.equal(stdout.trim(), 'ok');
  });
});

describe('the Python SDK under mypy --strict', needs(mypy, 'the Python SDK type check'), () => {
  const check = (...files: string[]) =>
    run('mypy', ['--strict', '--python-version', '3.10', '--cache-dir=/dev/null', join(SDK, 'workspace_user_api'), ...files], {
      env: { ...process.env, MYPYPATH: SDK },
    });

  it('passes for the SDK and for a typed program that uses every operation', async () => {
    assertPresent(mypy);
    const { stdout } = await check(
      DRIVER,
      join(PROJECT_ROOT, 'contract-tests/python/retries.py'),
      join(PROJECT_ROOT, 'contract-tests/python/verify_webhooks.py'),
    );
    assert.match(stdout, /^Success: no issues found/m);
    // An optional parameter that may be null says so once, as a person would write it.
    assert.doesNotMatch(await readFile(join(SDK, 'workspace_user_api', 'client.py'), 'utf8'), /\| None \| None/);
  });

  it('catches a program that passes a wrong type or a misspelled argument', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'python-sdk-typing-'));
    try {
      const mistake = join(scratch, 'mistake.py');
      await writeFile(
        mistake,
        [
          'from workspace_user_api import UserUpdate, WorkspaceClient',
          'client = WorkspaceClient("http://127.0.0.1:8080", api_key="k", api_key_secret="s")',
          'client.update_user(target_user=UserUpdate(user_id="0" * 32, locked="yes"))',
          'client.get_users(sort_by="password")',
          'client.delete_user(target_usr=None)',
          '',
        ].join('\n'),
      );
      const failed = await check(mistake).then(
        () => assert.fail('mypy accepted the mistakes'),
        (error: unknown) => (error as { stdout: string }).stdout,
      );
      assert.match(
        failed,
        /mistake\.py:3: error: Argument "locked" to "UserUpdate" has incompatible type "str"; expected "(Optional\[bool\]|bool \| None)"/,
      );
      assert.match(failed, /mistake\.py:4: error: Argument "sort_by" to "get_users" of "WorkspaceClient" has incompatible type/);
      assert.match(failed, /mistake\.py:5: error: Unexpected keyword argument "target_usr"/);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
