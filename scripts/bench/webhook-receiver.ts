/**
 * The benchmark's webhook receiver: answers every delivery 204 at once and
 * keeps, for each event, the time from the event's timestamp (taken in the
 * write's transaction, just before its commit) to the delivery's arrival.
 *
 *   GET  /stats   { received, distinct, p50_ms, p99_ms, first_at, last_at }
 *   POST /reset   forgets what was received
 *
 * A process of its own, so that neither the service nor the load shares its event loop.
 */
import { createServer } from 'node:http';

let latencies: number[] = [];
let seen = new Set<string>();
let firstAt = 0;
let lastAt = 0;

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    if (request.method === 'GET' && request.url === '/stats') {
      const sorted = [...latencies].sort((a, b) => a - b);
      response.setHeader('content-type', 'application/json');
      response.end(
        JSON.stringify({
          received: latencies.length,
          distinct: seen.size,
          p50_ms: percentile(sorted, 50),
          p99_ms: percentile(sorted, 99),
          first_at: firstAt,
          last_at: lastAt,
        }),
      );
      return;
    }
    if (request.method === 'POST' && request.url === '/reset') {
      latencies = [];
      seen = new Set();
      firstAt = lastAt = 0;
      response.statusCode = 204;
      response.end();
      return;
    }
    const arrived = Date.now();
    const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { event_id: string; type: string; timestamp: string };
    if (event.type !== 'webhook.ping') {
      latencies.push(arrived - Date.parse(event.timestamp));
      seen.add(event.event_id);
      firstAt ||= arrived;
      lastAt = arrived;
    }
    response.statusCode = 204;
    response.end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
