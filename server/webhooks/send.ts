/**
 * One POST of a delivery: node's http client with a lookup of our own, so
 * that the address actually connected to is checked (a name that resolved to
 * a public address when the webhook was made may resolve to 127.0.0.1 now: DNS
 * rebinding). No redirect is followed (node's client follows none), and the
 * whole exchange has DELIVERY_TIMEOUT_MS.
 */
import { lookup as dnsLookup } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { addressRefusal, hostOf } from './address-rules.js';

export const DELIVERY_TIMEOUT_MS = 15_000;
/** How much of an answer's body is kept for get_webhook_deliveries. */
const EXCERPT_BYTES = 1024;

export type Sent = { status: number; retryAfter: string | undefined; excerpt: string } | { error: string };

/** Sends a body: how the receiver answered, or why no answer came. */
export type Sender = (url: string, headers: Record<string, string>, body: string) => Promise<Sent>;

/** Thrown by the lookup when the address is refused: its message is the delivery's error. */
class RefusedAddress extends Error {}

export function httpSender({ allowPrivate = false, lookup = dnsLookup, timeoutMs = DELIVERY_TIMEOUT_MS } = {}): Sender {
  const checkedLookup: LookupFunction = (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return void callback(error, '', 0);
      const found = addresses;
      const refused = found.map((entry) => addressRefusal(entry.address, { allowPrivate })).find(Boolean);
      if (refused)
        return void callback(new RefusedAddress(`${hostname} resolved to a refused address: ${refused.replace(/^the host /, '')}`), '', 0);
      if (options.all) return void callback(null, found);
      const [first] = found;
      if (!first) return void callback(new RefusedAddress(`${hostname} resolves to no address`), '', 0);
      callback(null, first.address, first.family);
    });
  };
  return (target, headers, body) =>
    new Promise<Sent>((resolve) => {
      const url = new URL(target);
      // A literal address is connected to without a lookup: checked here instead.
      const host = hostOf(url);
      const literal = ipaddr.isValid(host) ? addressRefusal(host, { allowPrivate }) : undefined;
      if (literal) return void resolve({ error: literal });
      const client = url.protocol === 'https:' ? https : http;
      const request = client.request(
        url,
        {
          method: 'POST',
          headers: { ...headers, 'content-length': Buffer.byteLength(body), 'user-agent': 'workspace-user-api-webhooks' },
          lookup: checkedLookup,
          timeout: timeoutMs,
        },
        (response) => {
          const chunks: Buffer[] = [];
          let kept = 0;
          response.on('data', (chunk: Buffer) => {
            if (kept < EXCERPT_BYTES) chunks.push(chunk.subarray(0, EXCERPT_BYTES - kept));
            kept += chunk.length;
          });
          response.on('end', () => {
            clearTimeout(deadline);
            const retryAfter = response.headers['retry-after'] as string | string[] | undefined;
            resolve({
              status: response.statusCode ?? 0,
              retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
              excerpt: Buffer.concat(chunks).toString('utf8'),
            });
          });
          response.on('error', (error) => resolve({ error: error.message }));
        },
      );
      // The socket's timeout is for silence; this one is for the whole exchange.
      const deadline = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
      request.on('timeout', () => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)));
      request.on('error', (error) => {
        clearTimeout(deadline);
        const code = (error as NodeJS.ErrnoException).code;
        const named = error instanceof RefusedAddress || code === undefined || error.message.includes(code);
        resolve({ error: named ? error.message : `${error.message} (${code})` });
      });
      request.end(body);
    });
}
