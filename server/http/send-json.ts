/**
 * Sends a JSON body, or for a HEAD request only the headers GET would get
 * (its Content-Length included) and no body: the contracts declare no body
 * for HEAD, and the response validator refuses one.
 */
import type { Request, Response } from 'express';

export function sendJson(req: Request, res: Response, body: unknown): void {
  if (req.method !== 'HEAD') return void res.json(body);
  if (!res.get('Content-Type')) res.type('json');
  res.set('Content-Length', String(Buffer.byteLength(JSON.stringify(body)))).end();
}
