/**
 * The address a client reached the service at: the scheme from `trust proxy`,
 * host and port from the Host header. Undefined when the Host header is
 * anything but a host name or address and a port, since the address is
 * written into what the service answers (the reference page's server, an
 * error's `type`).
 */
import type { Request } from 'express';

const PLAIN_HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

export function servedAddress(req: Request): string | undefined {
  const host = req.get('host') ?? '';
  return PLAIN_HOST.test(host) ? `${req.protocol}://${host}` : undefined;
}
