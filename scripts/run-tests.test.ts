import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { storesOf, testEnvironment, testFiles, tierOf } from './run-tests.js';

describe('test tiers, by file name', () => {
  it('tell the tier and the stores from the name and the folder', () => {
    assert.equal(tierOf('server/config.test.ts'), 'unit');
    assert.deepEqual(storesOf('server/config.test.ts'), []);
    assert.deepEqual(storesOf('server/handlers/users.integration.test.ts'), ['sqlite', 'postgres']);
    assert.deepEqual(storesOf('server/store/user-repository.integration.test.ts'), ['sqlite', 'postgres']);
    assert.deepEqual(storesOf('server/main.integration.test.ts'), ['sqlite', 'postgres']);
    assert.deepEqual(storesOf('server/http/hostile-input.integration.test.ts'), ['sqlite', 'postgres'], 'odd bytes that reach the store');
    assert.deepEqual(storesOf('server/http/documentation.integration.test.ts'), ['sqlite'], 'HTTP alone: once');
    assert.deepEqual(storesOf('gate/gate.system.test.ts'), ['sqlite'], 'a client of the API: once');
    assert.deepEqual(storesOf('contract-tests/kasm-compatibility.system.test.ts'), ['sqlite']);
    assert.deepEqual(storesOf('server/store/sqlite/storage.integration.test.ts'), ['sqlite']);
    assert.deepEqual(storesOf('server/store/postgres/open-store.integration.test.ts'), ['postgres']);
    assert.deepEqual(storesOf('server/faults.sqlite.system.test.ts'), ['sqlite']);
    assert.deepEqual(storesOf('scripts/bench.system.test.ts'), ['sqlite']);
    assert.deepEqual(storesOf('server/sample/readme-python-client.system.test.ts'), ['sqlite']);
    assert.deepEqual(storesOf('cli/main.integration.test.ts'), ['sqlite'], 'a client of the API: once');
    assert.deepEqual(storesOf('client/package.system.test.ts'), ['sqlite']);
  });

  it("are the project's own files: no installed package's, none behind a symbolic link", () => {
    const root = mkdtempSync(join(tmpdir(), 'test-files-'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'elsewhere-'));
    try {
      const write = (path: string) => {
        mkdirSync(join(root, path, '..'), { recursive: true });
        writeFileSync(join(root, path), '');
      };
      write('server/store/own.integration.test.ts');
      write('scripts/own.test.ts');
      write('server/node_modules/some-package/theirs.test.ts');
      writeFileSync(join(elsewhere, 'other-checkout.test.ts'), '');
      symlinkSync(elsewhere, join(root, 'server', 'linked'));
      symlinkSync(root, join(root, 'scripts', 'loop'));
      assert.deepEqual(
        testFiles(root),
        ['scripts/own.test.ts', 'server/store/own.integration.test.ts'].map((path) => join(path)),
      );
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('run on PostgreSQL every test of the store and of the handlers over it', () => {
    for (const file of testFiles().filter((name) => /^server\/(store|handlers)\//.test(name) && tierOf(name) !== 'unit'))
      if (!file.includes('sqlite')) assert.ok(storesOf(file).includes('postgres'), file);
  });

  it('leave no test that opens a database in the unit tier, where PostgreSQL would never see it', () => {
    const databaseHelpers =
      /from '[^']*\/(testing\/service|testing\/service-process|testing\/database|gate-target|open-store|open-test-store|local-deployment)\.js'/;
    const misplaced = testFiles().filter(
      (file) => tierOf(file) === 'unit' && databaseHelpers.test(readFileSync(join(PROJECT_ROOT, file), 'utf8')),
    );
    assert.deepEqual(misplaced, [], 'name these *.integration.test.ts or *.system.test.ts');
  });
});

describe("the tests' environment", () => {
  it('puts temporary files in a directory of the run under a memory directory, removed at the end, and a compile cache', () => {
    const memory = mkdtempSync(join(tmpdir(), 'memory-'));
    try {
      const { env, cleanUp } = testEnvironment({ PATH: '/bin' }, memory);
      assert.ok(env.TMPDIR?.startsWith(join(memory, 'workspace-tests-')), env.TMPDIR);
      assert.equal(statSync(env.TMPDIR!).mode & 0o7777, 0o1777, 'as /tmp is, for the postgres user');
      assert.equal(env.PATH, '/bin');
      assert.match(env.NODE_COMPILE_CACHE ?? '', /workspace-user-api.compile-cache$/);
      writeFileSync(join(env.TMPDIR!, 'left-behind'), '');
      cleanUp();
      assert.equal(existsSync(env.TMPDIR!), false);
    } finally {
      rmSync(memory, { recursive: true, force: true });
    }
  });

  it('leaves TMPDIR and NODE_COMPILE_CACHE as they are when set, and the temporary directory where there is no memory directory', () => {
    const given = testEnvironment({ TMPDIR: '/var/tmp', NODE_COMPILE_CACHE: '/cache' }, tmpdir());
    assert.equal(given.env.TMPDIR, '/var/tmp');
    assert.equal(given.env.NODE_COMPILE_CACHE, '/cache');
    const none = testEnvironment({}, join(tmpdir(), 'no-such-directory'));
    assert.equal(none.env.TMPDIR, undefined);
    none.cleanUp();
  });
});
