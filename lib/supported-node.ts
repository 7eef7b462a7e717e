/**
 * Whether this Node is one the project supports (package.json's `engines`,
 * the one place the versions are named), said in one line when it is not:
 * on Node 20 better-sqlite3 ends the process with a segmentation fault at the
 * first database it opens, and nothing before it would have said why. Each
 * entry point asks first (server/main.ts, server/admin/main.ts,
 * server/sample/main.ts, cli/main.ts); `npm ci` refuses on its own
 * (`engine-strict` in .npmrc).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whether `version` (20.20.2) is within `range` as engines writes it here: `^22.12.0 || ^24.0.0`. */
export function isWithin(version: string, range: string): boolean {
  const [major = 0, minor = 0, patch = 0] = version.replace(/^v/, '').split('.').map(Number);
  return range.split('||').some((alternative) => {
    const caret = /^\s*\^(\d+)\.(\d+)\.(\d+)\s*$/.exec(alternative);
    // A form this reader does not know is no reason to refuse a start.
    if (!caret) return true;
    const [wantedMajor, wantedMinor, wantedPatch] = caret.slice(1).map(Number) as [number, number, number];
    return major === wantedMajor && (minor > wantedMinor || (minor === wantedMinor && patch >= wantedPatch));
  });
}

/** The nearest package.json above this file, and the project's .nvmrc when there is one (a checkout). */
function nearest(name: string, from = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (let folder = from; ; folder = dirname(folder)) {
    if (existsSync(join(folder, name))) return join(folder, name);
    if (dirname(folder) === folder) return undefined;
  }
}

/** The line to stop with on an unsupported Node, or undefined on a supported one. */
export function unsupportedNode(version = process.versions.node): string | undefined {
  const manifest = nearest('package.json');
  const range = manifest ? (JSON.parse(readFileSync(manifest, 'utf8')) as { engines?: { node?: string } }).engines?.node : undefined;
  if (!range || isWithin(version, range)) return undefined;
  const nvmrc = nearest('.nvmrc');
  const tested = nvmrc ? readFileSync(nvmrc, 'utf8').trim() : undefined;
  return (
    `workspace-user-api runs on Node.js ${range}, and this is Node.js ${version}: ` +
    `install a supported one${tested ? ` (${tested}, the version in .nvmrc: \`nvm install\` in the checkout)` : ''}, then run this again`
  );
}

/** For entry points: on an unsupported Node, the line on stderr, then `exit` (process.exit stays in the entry file). */
export function leaveUnlessSupportedNode(exit: (code: number) => never): void {
  const refusal = unsupportedNode();
  if (!refusal) return;
  process.stderr.write(`${refusal}\n`);
  exit(1);
}
