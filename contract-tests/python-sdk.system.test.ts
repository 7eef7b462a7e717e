/**
 * The generated Python SDK (generated/python) against the real service, with
 * the machine's python3 and urllib3 2.x: every operation, and its documented
 * errors, through the SDK's own classes.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { assertPresent, needs, TOOLS } from '../lib/testing/external-tools.js';
import { startTestService, type TestService } from '../server/testing/service.js';
import { TEST_SETUP } from '../server/store/records.js';

const python3 = TOOLS.python3();

describe('the generated Python SDK', needs(python3, 'the Python SDK tests'), () => {
  let service: TestService;
  before(async () => {
    assertPresent(python3);
    service = await startTestService();
  });
  after(() => service.close());

  it('drives every operation of the contract against the real service', async () => {
    const group = await service.store.groups.create({ group_id: 'e'.repeat(32), name: 'Engineering' }, TEST_SETUP);
    const { stdout } = await promisify(execFile)('python3', [join(PROJECT_ROOT, 'contract-tests/python/drive_every_operation.py')], {
      env: {
        ...process.env,
        PYTHONPATH: join(PROJECT_ROOT, 'generated/python'),
        WORKSPACE_URL: service.baseUrl,
        WORKSPACE_API_KEY: service.admin.api_key,
        WORKSPACE_API_KEY_SECRET: service.admin.api_key_secret,
        GROUP_ID: group.group_id,
      },
    });
    const { operations } = JSON.parse(stdout.trim().split('\n').at(-1)!);
    assert.deepEqual([...operations].sort(), [
      'addUserGroup',
      'createUser',
      'deleteUser',
      'getAuditEvents',
      'getGroups',
      'getUser',
      'getUsers',
      'removeUserGroup',
      'updateUser',
      'validateCredentials',
    ]);
  });
});
