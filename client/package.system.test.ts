/**
 * The packages as their users get them, from `npm pack`:
 *
 * - an SDK consumer installs `workspace-user-api` alone into an empty project:
 *   no server dependency and no native binary comes with it, a strict tsc
 *   compiles `import { updateUser } from 'workspace-user-api/client'`, and the
 *   compiled code calls the real service;
 * - a terminal user installs `workspace-users` (with the SDK it depends on),
 *   and its bin runs against the same service.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { projectFile } from '../lib/project-root.js';
import { startTestService, type TestService } from '../server/testing/service.js';

const run = promisify(execFile);
const npm = (args: string[], cwd: string) => run('npm', args, { cwd, maxBuffer: 64 * 1024 * 1024 });

const CONSUMER = `import { configure, updateUser, createUser, type User } from 'workspace-user-api/client';

configure({ baseUrl: process.env.WORKSPACE_URL, api_key: process.env.KEY, api_key_secret: process.env.SECRET });

const created = await createUser({ target_user: { username: 'packed@example.com' } });
if (created.error) throw new Error(created.error.error_message);
const result = await updateUser({ target_user: { user_id: created.data.user.user_id, first_name: 'Packed' } });
if (result.error) throw new Error(result.error.error_message);
const user: User = result.data.user;
console.log(JSON.stringify({ first_name: user.first_name }));
`;

/** What only the server needs: none of it may reach an SDK consumer. */
const SERVER_ONLY = ['express', 'better-sqlite3', 'pg', 'kysely', '@node-rs/argon2', 'pino', 'commander', 'cli-table3'];

interface Packed {
  tarball: string;
  files: string[];
}

async function pack(folder: string, destination: string): Promise<Packed> {
  const { stdout } = await npm(['pack', '--json', '--pack-destination', destination], projectFile(folder));
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  return { tarball: join(destination, packed!.filename), files: packed!.files.map((file) => file.path) };
}

/** Every package folder under node_modules, scoped ones included. */
async function installedPackages(project: string): Promise<string[]> {
  const root = join(project, 'node_modules');
  const names: string[] = [];
  for (const entry of await readdir(root)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) for (const scoped of await readdir(join(root, entry))) names.push(`${entry}/${scoped}`);
    else names.push(entry);
  }
  return names;
}

async function filesUnder(directory: string): Promise<string[]> {
  return (await readdir(directory, { recursive: true })).map(String);
}

describe('the packed packages', { timeout: 300_000 }, () => {
  let scratch: string;
  let sdk: Packed;
  let cli: Packed;
  let service: TestService;
  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'workspace-pack-'));
    service = await startTestService();
    // scripts/run-tests.ts has built the packages: pack what was built.
    sdk = await pack('client', scratch);
    cli = await pack('cli', scratch);
  });
  after(async () => {
    await service.close();
    await rm(scratch, { recursive: true, force: true });
  });

  it('ship their build, declarations for the SDK, a README each, and no tests or sources', () => {
    for (const file of [
      'dist/client/index.js',
      'dist/client/index.d.ts',
      'dist/generated/workspace/types.d.ts',
      'README.md',
      'package.json',
    ])
      assert.ok(sdk.files.includes(file), `${file} is not in the SDK's package`);
    for (const file of ['dist/cli/main.js', 'README.md', 'package.json'])
      assert.ok(cli.files.includes(file), `${file} is not in the CLI's package`);
    for (const files of [sdk.files, cli.files])
      assert.deepEqual(
        files.filter((file) => /\.test\.|\.ts$/.test(file) && !file.endsWith('.d.ts')),
        [],
      );
  });

  it('installs the SDK alone with no server dependency and no native binary; strict tsc compiles against it; its code calls the service', async () => {
    const project = join(scratch, 'sdk-consumer');
    await mkdir(project);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'sdk-consumer', private: true, type: 'module' }));
    // The SDK alone first, as a consumer installs it; then the consumer's own compiler.
    await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', sdk.tarball], project);
    const installed = await installedPackages(project);
    assert.deepEqual(
      installed.sort(),
      ['@stablelib/base64', 'fast-sha256', 'openapi-fetch', 'openapi-typescript-helpers', 'standardwebhooks', 'workspace-user-api'],
      'what the SDK brings: openapi-fetch, and standardwebhooks for verifyWebhook',
    );
    for (const name of SERVER_ONLY) assert.ok(!installed.includes(name), `${name} came with the SDK`);
    const native = (await filesUnder(join(project, 'node_modules'))).filter(
      (file) => file.endsWith('.node') || file.endsWith('binding.gyp'),
    );
    assert.deepEqual(native, [], 'a native binary came with the SDK');

    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noUncheckedIndexedAccess: true,
          exactOptionalPropertyTypes: true,
          skipLibCheck: false,
          outDir: 'out',
          types: ['node'],
          lib: ['ES2023', 'DOM'],
        },
        include: ['main.ts'],
      }),
    );
    await writeFile(join(project, 'main.ts'), CONSUMER);
    await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-dev', 'typescript@5.9', '@types/node@22'], project);
    await run(join(project, 'node_modules/.bin/tsc'), ['-p', '.'], { cwd: project });

    const env = { ...process.env, WORKSPACE_URL: service.baseUrl, KEY: service.admin.api_key, SECRET: service.admin.api_key_secret };
    const { stdout } = await run(process.execPath, ['out/main.js'], { cwd: project, env });
    assert.deepEqual(JSON.parse(stdout), { first_name: 'Packed' });
  });

  it('installs the CLI with the SDK under it, and its bin runs against the service', async () => {
    const project = join(scratch, 'cli-user');
    await mkdir(project);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'cli-user', private: true }));
    await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', sdk.tarball, cli.tarball], project);
    const manifest = JSON.parse(await readFile(join(project, 'node_modules/workspace-users/package.json'), 'utf8')) as {
      version: string;
      dependencies: Record<string, string>;
    };
    assert.equal(
      manifest.dependencies['workspace-user-api'],
      JSON.parse(await readFile(projectFile('client/package.json'), 'utf8')).version,
    );
    const workspaceUsers = (...args: string[]) =>
      run(join(project, 'node_modules/.bin/workspace-users'), args, {
        cwd: project,
        env: {
          ...process.env,
          WORKSPACE_URL: service.baseUrl,
          WORKSPACE_API_KEY: service.admin.api_key,
          WORKSPACE_API_KEY_SECRET: service.admin.api_key_secret,
        },
      });
    await workspaceUsers('create', '--username', 'packed-cli@example.com', '--first-name', 'Installed');
    const got = await workspaceUsers('get', 'packed-cli@example.com', '--json');
    assert.equal(JSON.parse(got.stdout).first_name, 'Installed');
    assert.equal((await workspaceUsers('--version')).stdout, `${manifest.version}\n`);
  });
});
