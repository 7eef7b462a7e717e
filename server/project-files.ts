/**
 * The project's own files beside the code (the bundled contracts), found from
 * the package root: the same module runs from `server/` under tsx and from
 * `dist/server/` once compiled, so a path relative to the module would differ.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The checkout's root, where package.json is (resolved by the package's own name). */
export const PROJECT_ROOT = dirname(createRequire(import.meta.url).resolve('workspace-user-api/package.json'));

export function projectFile(...segments: string[]): string {
  return join(PROJECT_ROOT, ...segments);
}
