// Whether the build in each package's dist/ is as new as the sources, so that
// `npm start`, `npm run cli`, `admin` and `sample` skip the build when nothing
// changed (a walk of the sources' times: tens of milliseconds, where even an
// incremental build that finds nothing to do takes seconds).
//
//   node scripts/build-freshness.mjs --stamp   after a build (the root `npm run build` ends with it)
//
// Plain JavaScript: it runs before anything is compiled.
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What the build reads: the packages' sources, the generated contract and types, the settings that steer them, and the error reference's text. */
export const SOURCE_FOLDERS = ['client', 'cli', 'server', 'lib', 'generated', 'console'];
export const SOURCE_FILES = ['package.json', 'tsconfig.json', 'docs/errors.md'];
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', 'python', '__pycache__', 'testing']);
const isSource = (name) => !name.endsWith('.test.ts') && !name.endsWith('.md');

/** Written when a build ends; the build is current when no source is newer than it. */
export const stampOf = (root) => join(root, 'server', 'dist', '.build-stamp');

function newestIn(folder, newest) {
  let entries;
  try {
    entries = readdirSync(folder, { withFileTypes: true });
  } catch {
    return newest;
  }
  for (const entry of entries) {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_FOLDERS.has(entry.name)) newest = newestIn(path, newest);
    } else if (isSource(entry.name)) {
      const { mtimeMs } = statSync(path);
      if (mtimeMs > newest.mtimeMs) newest = { path, mtimeMs };
    }
  }
  return newest;
}

/** The most recently changed source file, and when. */
export function newestSource(root) {
  let newest = { path: '', mtimeMs: 0 };
  for (const file of SOURCE_FILES.map((name) => join(root, name)).filter(existsSync)) {
    const { mtimeMs } = statSync(file);
    if (mtimeMs > newest.mtimeMs) newest = { path: file, mtimeMs };
  }
  for (const folder of SOURCE_FOLDERS) newest = newestIn(join(root, folder), newest);
  return newest;
}

/**
 * Why the build must run, or undefined when it is current: every file in
 * `built` is there, and no source changed since the last build's stamp.
 */
export function whyBuild(root, built) {
  const missing = built.filter((file) => !existsSync(join(root, file)));
  if (missing.length > 0) return `${missing.join(', ')} missing`;
  const stamp = stampOf(root);
  if (!existsSync(stamp)) return 'never built here';
  const newest = newestSource(root);
  return newest.mtimeMs > statSync(stamp).mtimeMs ? `${newest.path} changed` : undefined;
}

export function writeStamp(root) {
  mkdirSync(dirname(stampOf(root)), { recursive: true });
  writeFileSync(stampOf(root), `${new Date().toISOString()}\n`);
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === '--stamp') {
  writeStamp(join(dirname(fileURLToPath(import.meta.url)), '..'));
}
