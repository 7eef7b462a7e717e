/**
 * The checkout's root, and files in it (the bundled contracts, the scripts),
 * found from the package's own name: the same module runs from `lib/` under
 * tsx and from `dist/lib/` once compiled, so a path relative to the module
 * would differ. Every part of the project finds its root here.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Where package.json is. */
export const PROJECT_ROOT = dirname(createRequire(import.meta.url).resolve('workspace-user-api/package.json'));

export function projectFile(...segments: string[]): string {
  return join(PROJECT_ROOT, ...segments);
}
