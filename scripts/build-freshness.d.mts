// Types of build-freshness.mjs, for the tests that import it.
export const SOURCE_FOLDERS: string[];
export const SOURCE_FILES: string[];
export function stampOf(root: string): string;
export function newestSource(root: string): { path: string; mtimeMs: number };
export function whyBuild(root: string, built: readonly string[]): string | undefined;
export function writeStamp(root: string): void;
