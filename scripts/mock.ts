/**
 * `npm run mock`: Prism serves the three contracts before any server exists, for
 * frontend teams. It answers with the contracts' examples (or generated data
 * with `Prefer: dynamic=true`) and rejects requests that break a contract
 * with the contract's own 400.
 *
 *   MOCK_HOST         default 127.0.0.1
 *   MOCK_PORT         the workspace API, default 4010
 *   MOCK_SAMPLE_PORT  the sample data server, default 4011
 *   MOCK_SCIM_PORT    SCIM 2.0, default 4012, at its root (the service has it at /scim/v2)
 */
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { startPrism } from '../lib/prism.js';

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
    startPrism('scim', port('MOCK_SCIM_PORT', 4012), host, 'inherit'),
  ]);
  process.stdout.write(
    `\nMock workspace API:   ${mocks[0].url}\nMock sample server:   ${mocks[1].url}\nMock SCIM 2.0:        ${mocks[2].url}  (the service's /scim/v2)\n\n`,
  );
  const stopAll = async () => {
    await Promise.all(mocks.map((mock) => mock.stop()));
    process.exit(0);
  };
  process.on('SIGINT', () => void stopAll());
  process.on('SIGTERM', () => void stopAll());
  // If one mock dies, stop the others: part of a mock is worse than none.
  await Promise.race(mocks.map((mock) => once(mock.process, 'exit')));
  await Promise.all(mocks.map((mock) => mock.stop()));
  process.stderr.write('a mock server stopped; stopping the others\n');
  process.exit(1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`mock: ${(error as Error).message}\n`);
    process.exit(1);
  });
}
