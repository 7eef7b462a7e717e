/** Runs one of the project's TypeScript entry points as a child process, as `npm run …` would. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function startScript(script: string, args: string[], env: Record<string, string>, stdin: 'ignore' | 'pipe' = 'ignore'): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, NODE_ENV: 'test', ...env },
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
