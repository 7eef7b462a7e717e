/**
 * The Kasm-client compatibility suite (contract-tests/kasm/): Python written
 * the way real Kasm integrations are (standard library only; credentials in
 * the body, and by HTTP Basic; one get_users call searched by username),
 * against the real service on either store.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { assertPresent, needs, TOOLS } from '../lib/testing/external-tools.js';
import { TEST_STORE } from '../server/testing/database.js';
import { startTestService, type TestService } from '../server/testing/service.js';

const python3 = TOOLS.python3();

describe(
  `a Kasm integration in Python against the service (${TEST_STORE})`,
  {
    timeout: 300_000,
    ...needs(python3, 'the Kasm compatibility suite'),
  },
  () => {
    let service: TestService;
    before(async () => {
      assertPresent(python3);
      service = await startTestService();
    });
    after(() => service.close());

    it('validates its key, creates 250 users, finds each through one get_users, updates, changes groups and deletes, both ways', async () => {
      await service.createGroup({ name: 'Developers' });
      const { stdout } = await promisify(execFile)('python3', [join(PROJECT_ROOT, 'contract-tests/kasm/compatibility.py')], {
        env: {
          ...process.env,
          WORKSPACE_URL: service.baseUrl,
          WORKSPACE_API_KEY: service.admin.api_key,
          WORKSPACE_API_KEY_SECRET: service.admin.api_key_secret,
          GROUP_NAME: 'Developers',
          USERS: '250',
        },
        timeout: 240_000,
      });
      const report = JSON.parse(stdout.trim().split('\n').at(-1)!);
      assert.deepEqual(report, {
        done: ['validate', 'created 250', 'found every user', 'updated', 'group added and removed', 'deleted'],
        users: 250,
      });
      assert.equal((await service.callAsAdmin('get_users')).body.total, 0, 'the suite cleaned up after itself');
    });

    it('answers the request shapes of real third-party Kasm clients as Kasm does, and serves the user operations they call', async () => {
      const { stdout } = await promisify(execFile)('python3', [join(PROJECT_ROOT, 'contract-tests/kasm/real_clients.py')], {
        env: {
          ...process.env,
          WORKSPACE_URL: service.baseUrl,
          WORKSPACE_API_KEY: service.admin.api_key,
          WORKSPACE_API_KEY_SECRET: service.admin.api_key_secret,
        },
        timeout: 60_000,
      });
      const report = JSON.parse(stdout.trim().split('\n').at(-1)!);
      assert.deepEqual(report.passed, [
        'create_user with nulls',
        'create_user with unknown keys',
        'read-only field refused',
        'update_user with empty password',
        'get_user with both ids',
        'dashed user_id',
        'get_users from page 0',
        'api-key headers',
        'attributes',
        'logout_user',
        'group lifecycle',
      ]);
    });
  },
);
