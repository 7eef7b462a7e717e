/**
 * The production install as an operator makes it (docs/operations.md,
 * Deployment), in a fresh copy of the checkout:
 *
 *   npm ci && npm run build && npm prune --omit=dev
 *
 * then `npm start`, `npm run admin -- …`, `npm run sample` and /docs, with no
 * development dependency left: nothing compiles TypeScript at run time. And
 * `npm ci --omit=dev` alone: it installs, with the patch applied, and `npm
 * start` then says how to build.
 */
import assert from 'node:assert/strict';
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { checkoutFiles } from '../lib/testing/checkout-files.js';

const run = promisify(execFile);
const npm = (args: string[], cwd: string, env: Record<string, string> = {}) =>
  run('npm', args, { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 });

/** What only development needs: none of it may be left by the prune. */
const DEVELOPMENT_ONLY = [
  'typescript',
  'tsx',
  'esbuild',
  'redoc',
  '@redocly/cli',
  'dredd',
  '@stoplight/prism-cli',
  'eslint',
  'playwright-core',
];

/** A copy of the project's files, as a clone with the uncommitted work has them. */
function copyCheckout(destination: string): void {
  for (const file of checkoutFiles()) cpSync(join(PROJECT_ROOT, file), join(destination, file));
}

function bytesUnder(directory: string): number {
  let total = 0;
  for (const entry of readdirSync(directory, { recursive: true, encoding: 'utf8' })) {
    const stat = lstatSync(join(directory, entry));
    if (stat.isFile()) total += stat.size;
  }
  return total;
}

interface Started {
  child: ChildProcess;
  output(): string;
  url: string;
}

/** `npm run <script>` as its own process group (npm starts node under a shell), until its log says `ready`. */
async function startNpm(script: string, cwd: string, env: Record<string, string>, ready: RegExp): Promise<Started> {
  const child = spawn('npm', ['run', script, '--silent'], { cwd, env: { ...process.env, ...env }, detached: true });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`npm run ${script} did not start within 30 s:\n${output}`)), 30_000);
    child.stdout.on('data', () => {
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`npm run ${script} exited with ${code}:\n${output}`)));
  });
  return { child, output: () => output, url };
}

function stop(started: Started | undefined): void {
  if (started?.child.pid && started.child.exitCode === null) process.kill(-started.child.pid, 'SIGTERM');
}

describe('the production install', { timeout: 600_000 }, () => {
  let root: string;
  let service: Started | undefined;
  let sample: Started | undefined;
  const data = () => join(root, 'var');
  before(async () => {
    root = mkdtempSync(join(tmpdir(), 'workspace-production-'));
    copyCheckout(root);
    await npm(['ci', '--prefer-offline', '--no-audit', '--no-fund'], root);
    await npm(['run', 'build'], root);
    await npm(['prune', '--omit=dev', '--no-audit', '--no-fund'], root);
  });
  after(() => {
    stop(service);
    stop(sample);
    rmSync(root, { recursive: true, force: true });
  });

  it('leaves no development dependency, in at most 100 MB', (t) => {
    for (const name of DEVELOPMENT_ONLY) assert.ok(!existsSync(join(root, 'node_modules', name)), `${name} is still installed`);
    for (const name of ['express', 'better-sqlite3', 'pg', 'patch-package'])
      assert.ok(existsSync(join(root, 'node_modules', name)), `${name} is missing`);
    const megabytes = bytesUnder(join(root, 'node_modules')) / 1e6;
    t.diagnostic(`production node_modules: ${megabytes.toFixed(1)} MB`);
    assert.ok(megabytes <= 100, `node_modules is ${megabytes.toFixed(1)} MB`);
  });

  it('builds no test code into server/dist: no testing/, no client/, no test file', () => {
    const built = readdirSync(join(root, 'server/dist'), { recursive: true, encoding: 'utf8' });
    assert.ok(
      built.some((path) => path.endsWith('main.js')),
      'the build is there',
    );
    const testCode = built.filter((path) => /(^|\/)(testing|client)(\/|$)|\.test\.js$/.test(path));
    assert.deepEqual(testCode, [], 'test support or the SDK compiled into the production build');
  });

  it('npm start serves, with its first key, /docs, /openapi.json and the console', async (t) => {
    const env = {
      PORT: '0',
      DATABASE_URL: `sqlite:${join(data(), 'workspace.db')}`,
      FIRST_KEY_FILE: join(data(), 'first-key.json'),
      LOG_LEVEL: 'info',
    };
    const started = performance.now();
    service = await startNpm('start', root, env, /"url":"(http:\/\/[^"]+)".*service ready/);
    const key = JSON.parse(readFileSync(env.FIRST_KEY_FILE, 'utf8')) as { api_key: string; api_key_secret: string };
    const checked = await fetch(`${service.url}/api/public/validate_credentials`, {
      method: 'POST',
      body: JSON.stringify(key),
      headers: { 'content-type': 'application/json' },
    });
    t.diagnostic(`npm start to its first 200: ${Math.round(performance.now() - started)} ms`);
    assert.equal(checked.status, 200);
    const docs = await fetch(`${service.url}/docs`);
    assert.equal(docs.status, 200);
    assert.match(await docs.text(), /<title>Workspace User API reference<\/title>[\s\S]*Update a user/);
    assert.equal((await fetch(`${service.url}/openapi.json`)).status, 200);
    // The console the build made, with its script, though the prune took esbuild and Preact.
    const consolePage = await fetch(`${service.url}/console/users`);
    assert.equal(consolePage.status, 200);
    assert.match(consolePage.headers.get('content-security-policy') ?? '', /script-src 'self'/);
    const script = /src="(\/console\/assets\/console-[0-9a-f]{16}\.js)"/.exec(await consolePage.text())?.[1];
    assert.equal((await fetch(`${service.url}${script}`)).status, 200);
  });

  it('npm run admin works beside the running service: status, create-key, backup', async () => {
    assert.ok(service, 'the service is running');
    const env = { DATABASE_URL: `sqlite:${join(data(), 'workspace.db')}` };
    const status = await npm(['run', 'admin', '--silent', '--', 'status'], root, env);
    assert.match(status.stdout, /schema: +\d{4}_\w+\npending: +none/);
    const created = JSON.parse(
      (await npm(['run', 'admin', '--silent', '--', 'create-key', '--name', 'ops', '--permissions', 'all'], root, env)).stdout,
    );
    const checked = await fetch(`${service.url}/api/public/validate_credentials`, {
      method: 'POST',
      body: JSON.stringify({ api_key: created.api_key, api_key_secret: created.api_key_secret }),
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(checked.status, 200);
    const backup = await npm(['run', 'admin', '--silent', '--', 'backup', join(data(), 'backup.db')], root, env);
    assert.match(backup.stdout, /backed up to/);
  });

  it('npm ci --omit=dev alone installs, patched, and npm start then says how to build', async () => {
    const bare = mkdtempSync(join(tmpdir(), 'workspace-omit-dev-'));
    try {
      copyCheckout(bare);
      await npm(['ci', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund'], bare);
      const patched = join(bare, 'node_modules/express-openapi-validator/dist/middlewares/openapi.metadata.js');
      assert.match(readFileSync(patched, 'utf8'), /matcherFor/, 'the patch is applied');
      const start = spawnSync('npm', ['start', '--silent'], { cwd: bare, encoding: 'utf8' });
      assert.equal(start.status, 1);
      assert.match(start.stderr, /is not built .* no TypeScript to build it[\s\S]*npm ci && npm run build && npm prune --omit=dev/);
    } finally {
      rmSync(bare, { recursive: true, force: true });
    }
  });

  it('npm run sample serves the sample data', async () => {
    sample = await startNpm('sample', root, { PORT: '0', LOG_LEVEL: 'info' }, /"url":"(http:\/\/[^"]+)".*listening/);
    const answer = await fetch(`${sample.url}/api/data`);
    assert.equal(answer.status, 200);
    assert.ok(Array.isArray(await answer.json()));
  });
});
