// Runs before `npm start`, `npm run sample`, `npm run admin` and `npm run cli`,
// which run the compiled code. In a development install (TypeScript is there),
// it builds first when a source changed since the last build, so that what
// runs is the sources as they are now (build-freshness.mjs): nothing to build
// costs tens of milliseconds, a change an incremental build of seconds. In a production install
// (`npm ci && npm run build && npm prune --omit=dev`, docs/operations.md) the
// build was made before pruning and nothing compiles: it only checks that the
// build is there, and says how to make it when it is not.
// Plain JavaScript, since a production install has no TypeScript runner.
//
// Given a compiled entry (`node scripts/build-in-development.mjs cli/dist/cli/main.js …`, as
// `npm run cli` runs it), it then runs that entry in this same process with the arguments after
// it: a person waits for the CLI's start at every command, and a second Node's start was about a
// sixth of `npm run cli -- --version` (BENCHMARKS.md, docs/decisions.md #68).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { whyBuild } from './build-freshness.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const BUILT = [
  'server/dist/server/main.js',
  'server/dist/docs/index.html',
  'cli/dist/cli/main.js',
  'client/dist/client/index.js',
  'console/dist/index.html',
];

function hasTypeScript() {
  try {
    createRequire(join(root, 'package.json')).resolve('typescript');
    return true;
  } catch {
    return false;
  }
}

if (!existsSync(join(root, 'node_modules'))) {
  // On a Node outside package.json's engines, `npm ci` refused (engine-strict) and says which Node it needs.
  process.stderr.write('workspace-user-api: its dependencies are not installed: run npm ci first\n');
  process.exit(1);
}

// The entry to run once the build is there; the arguments after it are its own, where it reads them
// (process.argv from the third on).
const [entry] = process.argv.splice(2, 1);

if (hasTypeScript()) {
  if (whyBuild(root, BUILT) !== undefined) {
    const npm = process.env.npm_execpath;
    const build = npm
      ? spawnSync(process.execPath, [npm, 'run', 'build', '--silent'], { cwd: root, stdio: 'inherit' })
      : spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
    if (build.status !== 0) process.exit(build.status ?? 1);
  }
} else {
  leaveUnlessBuilt();
}
if (entry !== undefined) await import(pathToFileURL(join(root, entry)).href);

function leaveUnlessBuilt() {
  const missing = BUILT.filter((file) => !existsSync(join(root, file)));
  if (missing.length === 0) return;
  process.stderr.write(
    `workspace-user-api is not built (${missing.join(', ')} missing), and this install has no TypeScript to build it.\n` +
      'Build before pruning the development dependencies:\n\n' +
      '  npm ci && npm run build && npm prune --omit=dev\n\n' +
      'See docs/operations.md, Deployment.\n',
  );
  process.exit(1);
}
