/**
 * `npm run mock`: Prism serves both contracts before any server exists, for
 * frontend teams. It answers with the contracts' examples (or generated data
 * with `Prefer: dynamic=true`) and rejects requests that break a contract
 * with the contract's own 400.
 *
 *   MOCK_HOST         default 127.0.0.1
 *   MOCK_PORT         the workspace API, default 4010
 *   MOCK_SAMPLE_PORT  the sample data server, default 4011
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { contractPath } from '../lib/contract/document.js';
import { PROJECT_ROOT } from '../lib/project-root.js';

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
  contract: 'workspace' | 'sample',
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
    child.stdout!.on('data', (chunk: Buffer) => {
      if (output === 'inherit') process.stdout.write(chunk);
      log += chunk;
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

function port(name: string, fallback: number): number {
  const value = Number(process.env[name] || fallback);
  if (!Number.isInteger(value) || value < 1 || value > 65535) throw new Error(`${name} must be a port number`);
  return value;
}

async function main(): Promise<void> {
  const host = process.env.MOCK_HOST || '127.0.0.1';
  const mocks = await Promise.all([
    startPrism('workspace', port('MOCK_PORT', 4010), host, 'inherit'),
    startPrism('sample', port('MOCK_SAMPLE_PORT', 4011), host, 'inherit'),
  ]);
  process.stdout.write(`\nMock workspace API:   ${mocks[0]!.url}\nMock sample server:   ${mocks[1]!.url}\n\n`);
  const stopAll = async () => {
    await Promise.all(mocks.map((mock) => mock.stop()));
    process.exit(0);
  };
  process.on('SIGINT', stopAll);
  process.on('SIGTERM', stopAll);
  // If either mock dies, stop the other: half a mock is worse than none.
  await Promise.race(mocks.map((mock) => once(mock.process, 'exit')));
  await Promise.all(mocks.map((mock) => mock.stop()));
  process.stderr.write('a mock server stopped; stopping the other\n');
  process.exit(1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`mock: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
