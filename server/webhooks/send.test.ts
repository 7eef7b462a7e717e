/** One delivery's POST against a receiver on this machine: the answer, no redirect followed, the deadline, and addresses checked where they connect. */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { httpSender } from './send.js';

describe('sending a webhook delivery', () => {
  let server: Server;
  let base: string;
  const bodies: string[] = [];
  before(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        bodies.push(body);
        if (request.url === '/busy') return void response.writeHead(429, { 'Retry-After': '30' }).end('slow down');
        if (request.url === '/moved') return void response.writeHead(302, { Location: 'http://169.254.169.254/' }).end();
        if (request.url === '/silent') return; // never answers
        response.writeHead(200).end('x'.repeat(5_000));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });

  it('posts the body with its headers, and keeps the first kilobyte of the answer and its Retry-After', async () => {
    const send = httpSender({ allowPrivate: true });
    const sent = await send(`${base}/in`, { 'webhook-id': 'evt_1', 'content-type': 'application/json' }, '{"a":1}');
    assert.ok('status' in sent && sent.status === 200);
    assert.equal(sent.excerpt.length, 1024);
    assert.equal(bodies.at(-1), '{"a":1}');
    const busy = await send(`${base}/busy`, {}, '{}');
    assert.deepEqual(busy, { status: 429, retryAfter: '30', excerpt: 'slow down' });
  });

  it('follows no redirect, and gives up on a silent receiver at its deadline', async () => {
    const send = httpSender({ allowPrivate: true, timeoutMs: 200 });
    const moved = await send(`${base}/moved`, {}, '{}');
    assert.ok('status' in moved && moved.status === 302, 'the 302 is the answer: nothing is sent to its Location');
    const started = performance.now();
    const silent = await send(`${base}/silent`, {}, '{}');
    assert.ok('error' in silent && /no answer within 0.2 s/.test(silent.error), JSON.stringify(silent));
    assert.ok(performance.now() - started < 2_000);
  });

  it('checks the address it connects to: a name that resolves to loopback now is refused, and nothing is sent', async () => {
    const before = bodies.length;
    const rebinding = httpSender({
      lookup: ((_host: string, _options: object, callback: (error: null, addresses: { address: string; family: number }[]) => void) =>
        callback(null, [{ address: '127.0.0.1', family: 4 }])) as never,
    });
    const port = new URL(base).port;
    const refused = await rebinding(`http://rebind.example.com:${port}/in`, {}, '{}');
    assert.ok(
      'error' in refused && /rebind\.example\.com resolved to a refused address: 127\.0\.0\.1 is a loopback address/.test(refused.error),
      JSON.stringify(refused),
    );
    const literal = await httpSender()(`${base}/in`, {}, '{}');
    assert.ok('error' in literal && /loopback/.test(literal.error));
    assert.equal(bodies.length, before, 'no request reached the receiver');
  });
});
