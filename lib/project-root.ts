/**
 * The checkout's root, and files in it (the bundled contracts, the scripts).
 * The same module runs from `lib/` under tsx and from a package's
 * `dist/lib/` once compiled (`server/dist/lib/`), so a path relative to the
 * module would differ: the root is the nearest folder above it whose
 * package.json declares the workspaces. Every part of the project that reads
 * the checkout finds its root here; the SDK and the CLI, which ship without
 * it, never do.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function rootAbove(directory: string): string {
  const manifest = join(directory, 'package.json');
  if (existsSync(manifest) && 'workspaces' in (JSON.parse(readFileSync(manifest, 'utf8')) as object)) return directory;
  const parent = dirname(directory);
  if (parent === directory) throw new Error(`no package.json with workspaces above ${fileURLToPath(import.meta.url)}`);
  return rootAbove(parent);
}

/** Where the root package.json (the one naming the workspaces) is. */
export const PROJECT_ROOT = rootAbove(dirname(fileURLToPath(import.meta.url)));

export function projectFile(...segments: string[]): string {
  return join(PROJECT_ROOT, ...segments);
}
