/**
 * What answers while the service starts: it listens before it migrates its
 * database, so that probes can tell "alive but not ready" from "down". The
 * liveness probe answers 200 and the readiness probe 503; any other request
 * waits for the app and is then served by it (within the request timeout).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { notReady, type Readiness } from '../readiness.js';
import type { Listener } from './lifecycle.js';

function answer(req: IncomingMessage, res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': 'no-store',
  });
  res.end(req.method === 'HEAD' ? undefined : text);
}

export function whileStarting(readiness: Readiness, app: Promise<Listener>): Listener {
  return (req, res) => {
    const probe = req.method === 'GET' || req.method === 'HEAD' ? req.url : undefined;
    if (probe === '/healthz') return void answer(req, res, 200, { status: 'ok' });
    if (probe === '/readyz') {
      const refusal = notReady(readiness.notReadyBecause ?? 'starting');
      return void answer(req, res, refusal.status, refusal.toBody());
    }
    app.then(
      (listener) => listener(req, res),
      () => res.destroy(),
    );
  };
}
