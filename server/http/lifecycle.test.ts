/**
 * The HTTP server both services run on (lifecycle.ts), with its timeouts
 * shortened so that nothing waits on real seconds: every connection it gives
 * up on is destroyed, not just ended, and no client can hold more than its
 * share of connections.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { readdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { rawRequest } from '../../lib/testing/raw-http.js';
import { refusalInItsProtocol } from '../app.js';
import { type ConnectionLimits, createHttpServer, DEFAULT_CONNECTION_LIMITS, type RefusalAnswer, SERVER_TIMEOUTS } from './lifecycle.js';

const SHORT = { headersMs: 300, requestMs: 600, keepAliveMs: 200, checkIntervalMs: 50 };

const servers: Server[] = [];
after(() =>
  servers.forEach((server) => {
    server.closeAllConnections();
    server.close();
  }),
);

/** A server of lifecycle.ts answering 200 `{"status":"ok"}` once a request's body has arrived. */
async function start(
  connections: Partial<ConnectionLimits> = {},
  answerRefusal?: RefusalAnswer,
): Promise<{ server: Server; url: string; port: number }> {
  const server = createHttpServer(
    (req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"status":"ok"}'));
    },
    { timeouts: SHORT, connections, ...(answerRefusal ? { answerRefusal } : {}) },
  ).listen(0, '127.0.0.1');
  await once(server, 'listening');
  servers.push(server);
  const { port } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${port}`, port };
}

const openConnections = (server: Server) => new Promise<number>((resolve) => server.getConnections((_error, count) => resolve(count)));
const openFiles = () => readdirSync('/proc/self/fd').length;

/**
 * Clients that keep their half open when the server closes its own, as a
 * careless or hostile one would: the server must not wait for them.
 */
async function halfOpenClients(port: number, count: number, localAddress = '127.0.0.1'): Promise<Socket[]> {
  return Promise.all(
    Array.from({ length: count }, async () => {
      const socket = connect({ port, host: '127.0.0.1', localAddress, allowHalfOpen: true });
      socket.on('error', () => {});
      socket.on('data', () => {});
      await once(socket, 'connect');
      return socket;
    }),
  );
}

async function until(condition: () => Promise<boolean>, withinMs: number, what: string): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`not within ${withinMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('the HTTP server', () => {
  it('has the documented limits', () => {
    assert.deepEqual([SERVER_TIMEOUTS.headersMs, SERVER_TIMEOUTS.requestMs, SERVER_TIMEOUTS.keepAliveMs], [10_000, 30_000, 5_000]);
    assert.deepEqual(DEFAULT_CONNECTION_LIMITS, { total: 1_000, perClient: 100 });
  });

  it('destroys 200 connections that send nothing once the header timeout passes, though the clients keep theirs open', async () => {
    const { server, port } = await start({ perClient: 1_000 });
    const before = openFiles();
    const clients = await halfOpenClients(port, 200);
    await until(async () => (await openConnections(server)) === 200, 2_000, 'all 200 connected');
    await until(async () => (await openConnections(server)) === 0, SHORT.headersMs + 1_000, 'the server let go of every one');
    // The clients' 200 sockets are still open in this process; the server's 200 are not.
    assert.ok(openFiles() - before <= 200 + 5, `open files went from ${before} to ${openFiles()}`);
    clients.forEach((socket) => socket.destroy());
  });

  it('cuts a client that drips its headers, one line at a time, at the header timeout, with a JSON 408', async () => {
    const { server, url } = await start();
    const lines = Array.from({ length: 40 }, (_, i) => `X-Drip-${i}: a\r\n`);
    const answer = await rawRequest(url, 'GET /healthz HTTP/1.1\r\nHost: x\r\n', {
      waitMs: 3_000,
      trickle: { parts: lines, intervalMs: 50 },
    });
    assert.equal(answer.status, 408);
    assert.equal(JSON.parse(answer.body).code, 'request_timeout');
    assert.ok(answer.closed && answer.elapsedMs < SHORT.headersMs + 500, `closed after ${answer.elapsedMs} ms`);
    assert.equal(await openConnections(server), 0);
  });

  it('cuts a client that drips its body at the request timeout, with a JSON 408', async () => {
    const { server, url } = await start();
    const body = 'x'.repeat(100);
    const answer = await rawRequest(url, `POST /anything HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`, {
      waitMs: 3_000,
      trickle: { parts: [...body], intervalMs: 50 },
    });
    assert.equal(answer.status, 408);
    assert.ok(answer.closed && answer.elapsedMs < SHORT.requestMs + 500, `closed after ${answer.elapsedMs} ms`);
    await until(async () => (await openConnections(server)) === 0, 500, 'the connection destroyed');
  });

  it('destroys a connection answered 400 for malformed HTTP though the client keeps its half open', async () => {
    const { server, port } = await start();
    const [client] = await halfOpenClients(port, 1);
    client!.write('NOT HTTP AT ALL\r\n\r\n');
    const [reply] = (await once(client!, 'data')) as [Buffer];
    assert.match(reply.toString(), /^HTTP\/1\.1 400 /);
    await until(async () => (await openConnections(server)) === 0, 500, 'the connection destroyed');
    client!.destroy();
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const { server, port } = await start();
    const [client] = await halfOpenClients(port, 1);
    client!.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await once(client!, 'data');
    assert.equal(await openConnections(server), 1);
    // Node gives an idle connection up to a second past the keep-alive timeout.
    await until(async () => (await openConnections(server)) === 0, SHORT.keepAliveMs + 1_500, 'the idle connection closed');
    client!.destroy();
  });

  it('turns away a client past its share of connections with a 503, while other clients are still served', async () => {
    const { server, port, url } = await start({ perClient: 20, total: 1_000 }, refusalInItsProtocol);
    const flood = await halfOpenClients(port, 20, '127.0.0.2');
    const refused = await halfOpenClients(port, 1, '127.0.0.2');
    const [reply] = (await once(refused[0]!, 'data')) as [Buffer];
    assert.match(reply.toString(), /^HTTP\/1\.1 503 [\s\S]*Retry-After: 1[\s\S]*"code":"too_many_connections"/);
    // Refused before a request is read, so in both protocols' shapes at once: a SCIM client reads its own fields.
    const body = JSON.parse(reply.toString().split('\r\n\r\n')[1]!);
    assert.deepEqual([body.schemas, body.status, body.scimType], [['urn:ietf:params:scim:api:messages:2.0:Error'], '503', 'unavailable']);
    const other = await fetch(`${url}/healthz`);
    assert.equal(other.status, 200, 'another client is served');
    await until(async () => (await openConnections(server)) === 20, 500, 'the refused connection destroyed');
    [...flood, ...refused].forEach((socket) => socket.destroy());
  });

  it('turns away connections past the total, and serves again once they close', async () => {
    const { url, port } = await start({ perClient: 1_000, total: 30 });
    const flood = await Promise.all([2, 3, 4].map((host) => halfOpenClients(port, 10, `127.0.0.${host}`)));
    const refused = await fetch(`${url}/healthz`).then(
      (response) => response.status,
      () => 0,
    );
    assert.equal(refused, 503);
    flood.flat().forEach((socket) => socket.destroy());
    await until(async () => (await fetch(`${url}/healthz`)).status === 200, 1_000, 'served again');
  });
});
