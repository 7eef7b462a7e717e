/** The gate's one way to send a request and read the whole answer. */
import type { HttpMethod } from './contract-schemas.js';

export interface Answer {
  status: number;
  contentType: string | null;
  headers: Headers;
  /** The parsed JSON body, or the raw text when it is not JSON. */
  body: unknown;
  text: string;
}

export interface RawRequest {
  method: HttpMethod;
  /** Path and query, e.g. `/api/public/get_user` or `/healthz?x=1`. */
  path: string;
  headers?: Record<string, string>;
  /** Sent as is. */
  body?: string;
}

export async function send(baseUrl: string, request: RawRequest): Promise<Answer> {
  const init: RequestInit = { method: request.method, headers: request.headers ?? {}, signal: AbortSignal.timeout(30_000) };
  if (request.body !== undefined) init.body = request.body;
  const response = await fetch(`${baseUrl}${request.path}`, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON: the contract check reports it where JSON was declared.
  }
  return { status: response.status, contentType: response.headers.get('content-type'), headers: response.headers, body, text };
}

export function postJson(baseUrl: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return send(baseUrl, { method: 'POST', path, headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
}
