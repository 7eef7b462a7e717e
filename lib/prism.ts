/**
 * Prism on one of the bundled contracts, as a child process: the mock
 * frontend teams build against (`npm run mock`), and the proxy and mock the
 * contract gate checks a deployment through (gate/prism-checks.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { contractPath } from './contract/document.js';
import { PROJECT_ROOT } from './project-root.js';

const PRISM = join(PROJECT_ROOT, 'node_modules/.bin/prism');

export interface RunningMock {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Starts Prism on one contract and resolves once it listens: `prism mock`, or,
 * given an upstream URL, `prism proxy --errors`, which forwards to the real
 * service and reports every request or answer that breaks the contract.
 */
export async function startPrism(
  contract: 'workspace' | 'sample' | 'scim',
  port: number,
  host = '127.0.0.1',
  output: 'pipe' | 'inherit' = 'pipe',
  upstream?: string,
): Promise<RunningMock> {
  const document = contractPath(contract, 'yaml');
  const mode = upstream ? ['proxy', document, upstream, '--errors'] : ['mock', document];
  const child = spawn(PRISM, [...mode, '--port', String(port), '--host', host], {
    stdio: ['ignore', 'pipe', output === 'inherit' ? 'inherit' : 'pipe'],
  });
  const url = `http://${host}:${port}`;
  let log = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start on ${url}:\n${log}`)), 30_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      if (output === 'inherit') process.stdout.write(chunk);
      log += chunk.toString();
      if (log.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Prism exited with ${code} before listening on ${url}:\n${log}`));
    });
  });
  return {
    url,
    process: child,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
