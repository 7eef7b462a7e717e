/**
 * The sample data server in the test's own process, on a free loopback port,
 * with response validation on.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createLogger } from '../logger.js';
import { createSampleApp } from '../sample/app.js';

export interface TestSampleServer {
  baseUrl: string;
  close(): void;
}

export async function startSampleServer(): Promise<TestSampleServer> {
  const server = createSampleApp({ logger: createLogger('silent'), validateResponses: true }).listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}
