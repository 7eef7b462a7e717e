/**
 * The service as a real process (`npm start`'s entry point, compiled) on a free port,
 * for tests that signal or kill it.
 */

import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScript } from './run-script.js';
import { SERVICE_COMMAND } from './commands.js';

export interface ServiceProcess {
  url: string;
  child: ChildProcess;
  stdout(): string;
  /** The first key, from the file the service named in its log (its output is not a terminal), when there was one. */
  printedKey(): { api_key: string; api_key_secret: string } | undefined;
  /** Where the service put the first key (FIRST_KEY_FILE), in a directory of the test's own. */
  firstKeyFile: string;
  /** Sends the signal and resolves with the exit code (null when killed by a signal). */
  stop(signal: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the script and resolves once it takes requests: the workspace service once it says it
 * is ready (it listens before it migrates), the sample server once it listens. `until: 'listening'`
 * resolves as soon as the workspace service listens, for tests of what it answers while it starts.
 */
export async function startServiceProcess(
  env: Record<string, string>,
  script = SERVICE_COMMAND,
  { until = script.includes('sample') ? 'listening' : 'ready' }: { until?: 'listening' | 'ready' } = {},
): Promise<ServiceProcess> {
  const firstKeyFile = join(mkdtempSync(join(tmpdir(), 'workspace-first-key-')), 'first-api-key.json');
  const child = startScript(script, [], { PORT: '0', LOG_LEVEL: 'info', FIRST_KEY_FILE: firstKeyFile, ...env });
  let stdout = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stdout += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A child left running would keep the test process alive: it goes with the failure.
      child.kill('SIGKILL');
      reject(new Error(`${script} did not start within 20 s:\n${stdout}`));
    }, 20_000);
    // The workspace service listens before it migrates; it takes requests once it says it is ready.
    const started = until === 'listening' ? /"url":"(http:\/\/[^"]+)".*listening/ : /"url":"(http:\/\/[^"]+)".*service ready/;
    child.stdout!.on('data', () => {
      const match = started.exec(stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.on('exit', (code) => reject(new Error(`${script} exited with ${code}:\n${stdout}`)));
  });
  return {
    url,
    child,
    stdout: () => stdout,
    firstKeyFile,
    printedKey() {
      const named = /"file":"([^"]+)"[^\n]*no API key existed/.exec(stdout);
      return named ? JSON.parse(readFileSync(named[1]!, 'utf8')) : undefined;
    },
    async stop(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = await once(child, 'exit');
      return code as number | null;
    },
  };
}
