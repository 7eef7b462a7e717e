/**
 * HTTP as bytes on a socket, for requests fetch cannot send: a declared
 * length that never comes, duplicate headers, a client that writes a byte a
 * second. Reads until the server closes the connection or `waitMs` passes.
 */
import { connect } from 'node:net';

export interface RawAnswer {
  /** The status of the last response read (0 when none came). */
  status: number;
  /** Every status line seen, in order: `100 Continue` comes before the final one. */
  statuses: number[];
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the connection within `waitMs`. */
  closed: boolean;
  /** Milliseconds from connecting until the server closed the connection (or `waitMs`). */
  elapsedMs: number;
}

export interface RawRequestOptions {
  /** How long to wait for the server to answer and close. */
  waitMs?: number;
  /** Parts written one after the other, `intervalMs` apart: a slow client. */
  trickle?: { parts: (string | Buffer)[]; intervalMs: number };
}

/** The body as text, its chunked framing removed. */
function decodeBody(raw: string, chunked: boolean): string {
  let body = raw;
  if (chunked) {
    body = '';
    for (let at = 0; at < raw.length;) {
      const lineEnd = raw.indexOf('\r\n', at);
      const size = parseInt(raw.slice(at, lineEnd), 16);
      if (!(size > 0)) break;
      body += raw.slice(lineEnd + 2, lineEnd + 2 + size);
      at = lineEnd + 2 + size + 2;
    }
  }
  return Buffer.from(body, 'latin1').toString('utf8');
}

export function rawRequest(
  baseUrl: string,
  request: string | Buffer,
  { waitMs = 5_000, trickle }: RawRequestOptions = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    let closed = false;
    const trickleTimers: NodeJS.Timeout[] = [];
    const finish = () => {
      clearTimeout(timer);
      trickleTimers.forEach(clearTimeout);
      const text = Buffer.concat(chunks).toString('latin1');
      const statusLines = [...text.matchAll(/^HTTP\/1\.1 (\d{3})/gm)];
      const statuses = statusLines.map((match) => Number(match[1]));
      const response = statusLines.length === 0 ? '' : text.slice(statusLines.at(-1)!.index);
      const split = response.indexOf('\r\n\r\n');
      const head = split === -1 ? response : response.slice(0, split);
      const headers: Record<string, string> = {};
      for (const line of head.split('\r\n').slice(1)) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: statuses.at(-1) ?? 0,
        statuses,
        headers,
        body: split === -1 ? '' : decodeBody(response.slice(split + 4), headers['transfer-encoding'] === 'chunked'),
        closed,
        elapsedMs: Date.now() - started,
      });
      socket.destroy();
    };
    socket.on('connect', () => {
      socket.write(request);
      trickle?.parts.forEach((part, index) => {
        trickleTimers.push(setTimeout(() => socket.writable && socket.write(part), (index + 1) * trickle.intervalMs));
      });
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // The server may close while we still write (EPIPE, ECONNRESET): that is an answer too.
      if (error.code === 'EPIPE' || error.code === 'ECONNRESET') return;
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      closed = true;
      finish();
    });
    const timer = setTimeout(finish, waitMs);
  });
}
