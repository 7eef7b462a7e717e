/**
 * The package as an integrator gets it: `npm pack`, installed into a scratch
 * project whose strict tsc compiles `import { updateUser } from
 * 'workspace-user-api/client'`, whose compiled code then calls the real
 * service, and whose installed `workspace-users` bin runs.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../lib/project-root.js';
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

describe('npm pack', { timeout: 300_000 }, () => {
  let scratch: string;
  let tarball: string;
  let service: TestService;
  before(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'workspace-pack-'));
    service = await startTestService();
    const { stdout } = await npm(['pack', '--json', '--pack-destination', scratch], PROJECT_ROOT);
    const [packed] = JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
    tarball = join(scratch, packed!.filename);
    shipped = packed!.files.map((file) => file.path);
  });
  after(async () => {
    await service.close();
    await rm(scratch, { recursive: true, force: true });
  });
  let shipped: string[] = [];

  it('ships the built client, its declarations and the CLI, and no tests', () => {
    for (const file of [
      'dist/client/index.js',
      'dist/client/index.d.ts',
      'dist/client/cli/main.js',
      'dist/generated/workspace/types.d.ts',
      'package.json',
    ]) {
      assert.ok(shipped.includes(file), `${file} is not in the package`);
    }
    assert.deepEqual(
      shipped.filter((file) => file.endsWith('.test.ts') || file.endsWith('.test.js')),
      [],
    );
  });

  it('installs into a project whose strict tsc compiles the import, and whose code calls the service', async () => {
    await writeFile(join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true, type: 'module' }));
    await writeFile(
      join(scratch, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noUncheckedIndexedAccess: true,
          outDir: 'out',
          types: ['node'],
          lib: ['ES2023', 'DOM'],
        },
        include: ['main.ts'],
      }),
    );
    await writeFile(join(scratch, 'main.ts'), CONSUMER);
    // --ignore-scripts: the client needs none of the server's native modules; the npm cache keeps it quick.
    await npm(
      ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund', tarball, 'typescript@5.9', '@types/node@20'],
      scratch,
    );
    await run(join(scratch, 'node_modules/.bin/tsc'), ['-p', '.'], { cwd: scratch });

    const env = { ...process.env, WORKSPACE_URL: service.baseUrl, KEY: service.admin.api_key, SECRET: service.admin.api_key_secret };
    const { stdout } = await run(process.execPath, ['out/main.js'], { cwd: scratch, env });
    assert.deepEqual(JSON.parse(stdout), { first_name: 'Packed' });

    const cli = await run(join(scratch, 'node_modules/.bin/workspace-users'), ['get', 'packed@example.com', '--json'], {
      cwd: scratch,
      env: {
        ...process.env,
        WORKSPACE_URL: service.baseUrl,
        WORKSPACE_API_KEY: service.admin.api_key,
        WORKSPACE_API_KEY_SECRET: service.admin.api_key_secret,
      },
    });
    assert.equal(JSON.parse(cli.stdout).first_name, 'Packed');
  });
});
