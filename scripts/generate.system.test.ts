import assert from 'node:assert/strict';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { generate } from './generate.js';

describe('npm run generate', () => {
  let copy: string;
  before(async () => {
    copy = await mkdtemp(join(tmpdir(), 'workspace-generate-'));
    const manifests = ['.', 'client', 'cli', 'server', 'gate'].map((folder) => join(folder, 'package.json'));
    for (const entry of ['openapi', 'generated', 'redocly.yaml', 'package-lock.json', ...manifests]) {
      await cp(join(PROJECT_ROOT, entry), join(copy, entry), { recursive: true });
    }
  });
  after(() => rm(copy, { recursive: true, force: true }));

  it('finds the committed generated/ up to date', async () => {
    assert.deepEqual(await generate(PROJECT_ROOT, { write: false }), []);
  });

  it("writes the contract's version into every package.json and the lock, and nothing else of them", async () => {
    const contract = join(copy, 'openapi/workspace/openapi.yaml');
    const original = await readFile(contract, 'utf8');
    const version = /^ {2}version: (\S+)$/m.exec(original)![1]!;
    await writeFile(contract, original.replace(`  version: ${version}`, '  version: 7.1.0'));
    try {
      const written = await generate(copy, { write: true });
      for (const folder of ['.', 'client', 'cli', 'server', 'gate']) {
        const file = join(folder, 'package.json');
        assert.ok(written.includes(file), `${file} is not rewritten`);
        const manifest = JSON.parse(await readFile(join(copy, file), 'utf8'));
        assert.equal(manifest.version, '7.1.0', file);
        const before = JSON.parse(await readFile(join(PROJECT_ROOT, file), 'utf8'));
        assert.deepEqual(
          { ...manifest, version: before.version },
          JSON.parse(JSON.stringify(before).replaceAll(`"workspace-user-api":"${version}"`, '"workspace-user-api":"7.1.0"')),
        );
      }
      const lock = JSON.parse(await readFile(join(copy, 'package-lock.json'), 'utf8'));
      assert.equal(lock.packages.cli.dependencies['workspace-user-api'], '7.1.0');
      assert.equal(lock.packages.client.version, '7.1.0');
      assert.match(await readFile(join(copy, 'generated/python/pyproject.toml'), 'utf8'), /^version = "7\.1\.0"$/m);
    } finally {
      await writeFile(contract, original);
      await generate(copy, { write: true });
    }
  });

  it('reports every output as stale when the contract changes, and --check writes nothing', async () => {
    const path = join(copy, 'openapi/workspace/paths/updateUser.yaml');
    await writeFile(path, (await readFile(path, 'utf8')).replace('summary: Update a user', 'summary: Update one user'));
    const before = await readFile(join(copy, 'generated/workspace/types.ts'), 'utf8');
    const stale = await generate(copy, { write: false });
    for (const file of ['generated/workspace/openapi-3.0.yaml', 'generated/workspace/openapi.yaml', 'generated/workspace/types.ts']) {
      assert.ok(stale.includes(file), `${file} is not reported`);
    }
    assert.ok(stale.includes('generated/python/workspace_user_api/client.py'), 'the Python SDK follows the contract');
    assert.deepEqual(
      stale.filter((file) => file.startsWith('generated/sample/')),
      [],
      'the sample contract did not change',
    );
    assert.equal(await readFile(join(copy, 'generated/workspace/types.ts'), 'utf8'), before);
  });

  it('reports a file the generators no longer make, and regenerating removes it with the folder it leaves empty', async () => {
    const leftover = join(copy, 'generated/python/workspace_user_api/api/users_api.py');
    await mkdir(dirname(leftover));
    await writeFile(leftover, '# a module an older generator made\n');
    assert.ok((await generate(copy, { write: false })).includes('generated/python/workspace_user_api/api/users_api.py'));
    await generate(copy, { write: true });
    await assert.rejects(readdir(dirname(leftover)), { code: 'ENOENT' });
    assert.ok((await readdir(join(copy, 'generated/python/workspace_user_api'))).includes('client.py'));
  });

  it('leaves the caches Python and mypy write beside the SDK alone', async () => {
    const cache = join(copy, 'generated/python/workspace_user_api/__pycache__/client.cpython-311.pyc');
    await mkdir(dirname(cache));
    await writeFile(cache, 'bytecode');
    assert.deepEqual(await generate(copy, { write: false }), []);
  });

  it('reports a hand edit of a generated file, and regenerating repairs it', async () => {
    const path = join(copy, 'generated/workspace/types.ts');
    await writeFile(path, `${await readFile(path, 'utf8')}\nexport type HandEdited = true;\n`);
    assert.ok((await generate(copy, { write: false })).includes('generated/workspace/types.ts'));
    await generate(copy, { write: true });
    assert.deepEqual(await generate(copy, { write: false }), []);
    assert.doesNotMatch(await readFile(path, 'utf8'), /HandEdited/);
  });

  it('writes the bundle twice, as YAML and as the JSON the servers load, the same document', async () => {
    for (const contract of ['workspace', 'sample', 'scim']) {
      const yaml = parse(await readFile(join(PROJECT_ROOT, 'generated', contract, 'openapi.yaml'), 'utf8'));
      assert.deepEqual(JSON.parse(await readFile(join(PROJECT_ROOT, 'generated', contract, 'openapi.json'), 'utf8')), yaml);
    }
  });

  it('marks every generated file as not to be edited', async () => {
    for (const file of ['openapi.yaml', 'openapi-3.0.yaml', 'types.ts']) {
      assert.match(
        await readFile(join(PROJECT_ROOT, 'generated/workspace', file), 'utf8'),
        /^(#|\/\*\*) Generated by `npm run generate`.*Do not edit/,
      );
    }
  });
});
