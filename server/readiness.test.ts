import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { whileStarting } from './http/starting.js';
import { Readiness } from './readiness.js';

describe('readiness', () => {
  it('goes from starting to ready, and from either to stopping for good', () => {
    const readiness = new Readiness();
    assert.equal(readiness.notReadyBecause, 'starting (migrating the database)');
    readiness.ready();
    assert.equal(readiness.notReadyBecause, undefined);
    readiness.stopping();
    readiness.ready();
    assert.equal(readiness.phase, 'stopping', 'a service told to stop never becomes ready again');
    assert.equal(readiness.notReadyBecause, 'shutting down');
  });

  it('while starting: alive, not ready, and other requests wait for the app', async (t) => {
    const readiness = new Readiness();
    let startApp!: (listener: (req: unknown, res: { end(text: string): void }) => void) => void;
    const app = new Promise<never>((resolve) => (startApp = resolve as never));
    const server = createServer(whileStarting(readiness, app)).listen(0, '127.0.0.1');
    t.after(() => server.close());
    await once(server, 'listening');
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const live = await fetch(`${base}/healthz`);
    assert.deepEqual({ status: live.status, body: await live.json() }, { status: 200, body: { status: 'ok' } });
    const ready = await fetch(`${base}/readyz`);
    assert.deepEqual(
      { status: ready.status, body: await ready.json() },
      {
        status: 503,
        body: {
          type: '/docs/errors#not_ready',
          title: 'Not ready',
          status: 503,
          detail: 'Not ready: starting (migrating the database)',
          error_message: 'Not ready: starting (migrating the database)',
          code: 'not_ready',
        },
      },
    );
    const head = await fetch(`${base}/readyz`, { method: 'HEAD' });
    assert.equal(head.status, 503);
    assert.equal(await head.text(), '');

    let answered = false;
    // The server has the request once it emits it: from then on only the app can answer it.
    const arrived = once(server, 'request');
    const waiting = fetch(`${base}/api/public/get_groups`, { method: 'POST' }).then(async (response) => {
      answered = true;
      return response.text();
    });
    const [, response] = (await arrived) as [unknown, ServerResponse];
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(response.headersSent, false, 'a request waits while the service starts: nothing was sent');
    assert.equal(answered, false);
    startApp((_req, res) => res.end('served by the app'));
    assert.equal(await waiting, 'served by the app');
  });
});
