/**
 * Prism on one of the bundled contracts, as a child process: the mock
 * frontend teams build against (`npm run mock`), and the proxy and mock the
 * contract gate checks a deployment through (gate/prism-checks.ts).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
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
/**
 * The contract as the mock serves it. Prism answers a request the contract refuses with the
 * operation's 422 where one is declared, before its 400; the contracts' 422s are the
 * Idempotency-Key's (another request under a key), which a mock, remembering nothing, never
 * answers. So the mock's copy leaves them out, and a refused request gets the contract's 400,
 * with the example `Prefer` names.
 */
function mockDocument(contract: 'workspace' | 'sample' | 'scim'): string {
  const document = JSON.parse(readFileSync(contractPath(contract, 'json'), 'utf8')) as {
    paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>;
  };
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      if (typeof operation === 'object' && operation.responses) delete operation.responses['422'];
    }
  }
  const file = join(mkdtempSync(join(tmpdir(), 'workspace-mock-')), `${contract}.json`);
  writeFileSync(file, JSON.stringify(document));
  return file;
}

export async function startPrism(
  contract: 'workspace' | 'sample' | 'scim',
  port: number,
  host = '127.0.0.1',
  output: 'pipe' | 'inherit' = 'pipe',
  upstream?: string,
): Promise<RunningMock> {
  const mode = upstream ? ['proxy', contractPath(contract, 'yaml'), upstream, '--errors'] : ['mock', mockDocument(contract)];
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
