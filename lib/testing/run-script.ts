/**
 * Runs one of the project's entry points as a child process, as `npm run …`
 * would: a TypeScript source under tsx, a compiled one (`dist/…js`) by node alone.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { PROJECT_ROOT } from '../project-root.js';

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function startScript(
  script: string,
  args: string[],
  env: Record<string, string>,
  stdin: 'ignore' | 'pipe' = 'ignore',
): ChildProcess {
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  return spawn(process.execPath, [...loader, script, ...args], {
    cwd: PROJECT_ROOT,
    // Every answer checked against the contract, as the in-process test service does.
    env: { ...process.env, NODE_ENV: 'test', VALIDATE_RESPONSES: 'true', ...env },
    stdio: [stdin, 'pipe', 'pipe'],
  });
}

/** Runs a script to its end; `input`, when given, is its standard input. */
export function runScript(script: string, args: string[], env: Record<string, string>, input?: string): Promise<Finished> {
  const child = startScript(script, args, env, input === undefined ? 'ignore' : 'pipe');
  child.stdin?.end(input);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
