/**
 * The console session's cookie on the wire (keys/console-sessions.ts keeps the
 * sessions): `HttpOnly` (no script reads it), `SameSite=Strict` (no other site's
 * page sends it), `Path=/`; served over TLS, `Secure` and named with the
 * `__Host-` prefix, which a browser keeps to this host and to secure pages. The
 * cookie package parses and writes it.
 */
import { parseCookie, stringifySetCookie } from 'cookie';
import type { Request } from 'express';
import { SESSION_COOKIE } from '../../lib/contract/operations.js';

const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;

/** The session token the request's cookie carries; the TLS name first. */
export function sessionTokenOf(req: Request): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  const cookies = parseCookie(header);
  return cookies[SECURE_SESSION_COOKIE] ?? (req.secure ? undefined : cookies[SESSION_COOKIE]);
}

/** The Set-Cookie of a session that lasts until `expires`. */
export function sessionCookie(req: Request, token: string, expires: Date): string {
  return stringifySetCookie(req.secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure: req.secure,
    expires,
  });
}

/** The Set-Cookie that makes the browser forget the session. */
export function clearedSessionCookie(req: Request): string {
  return stringifySetCookie(req.secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE, '', {
    httpOnly: true,
    sameSite: 'strict',
    path: '/',
    secure: req.secure,
    expires: new Date(0),
  });
}
