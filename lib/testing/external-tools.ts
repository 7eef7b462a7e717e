/**
 * The tools from outside the npm tree that some tests need (Chromium,
 * PostgreSQL, python3, mypy, mount as root). Every one is treated alike:
 * present, its tests run; missing outside CI, its tests are skipped with a
 * banner no one can miss; missing under CI=true, its tests run and fail,
 * saying what to install. `.ci/run` installs them all.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface ExternalTool {
  /** What it is, as a person would say it: "python3", "Chromium". */
  name: string;
  /** Whether it is here. */
  present: boolean;
  /** How to get it, for the message. */
  install: string;
}

const underCi = () => process.env.CI === 'true';

/** Whether a command runs at all (`--version` or the like). */
export function commandRuns(command: string, args: string[] = ['--version']): boolean {
  const run = spawnSync(command, args, { stdio: 'ignore', timeout: 10_000 });
  return run.error === undefined && run.status === 0;
}

export const TOOLS = {
  chromium: (): ExternalTool => {
    const path = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
    return { name: `Chromium (${path})`, present: existsSync(path), install: 'apt-get install chromium, or set CHROMIUM_PATH' };
  },
  python3: (): ExternalTool => ({ name: 'python3', present: commandRuns('python3'), install: 'apt-get install python3' }),
  mypy: (): ExternalTool => ({ name: 'mypy', present: commandRuns('mypy'), install: 'apt-get install mypy' }),
  rootForMount: (): ExternalTool => ({
    name: 'root (to mount a tmpfs)',
    present: process.getuid?.() === 0,
    install: 'run the tests as root',
  }),
} as const;

/** The banner for what is skipped, on stderr; true when the caller should skip. */
export function skipLoudly(tool: ExternalTool, what: string): boolean {
  if (tool.present || underCi()) return false;
  process.stderr.write(`\n*** SKIPPING ${what}: no ${tool.name} (${tool.install}). Under CI=true they fail instead. ***\n\n`);
  return true;
}

/** The `skip` option for a describe() of tests that need `tool`; prints the banner when it skips. */
export function needs(tool: ExternalTool, what: string): { skip: string | false } {
  return { skip: skipLoudly(tool, what) ? `no ${tool.name}` : false };
}

/** Throws what to install when the tool is missing: the first check of tests that run under CI=true. */
export function assertPresent(tool: ExternalTool): void {
  if (!tool.present) throw new Error(`CI=true needs ${tool.name}: ${tool.install} (.ci/run installs it)`);
}
