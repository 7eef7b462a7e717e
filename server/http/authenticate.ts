/**
 * Checks the caller's credentials before anything else is looked up, so an
 * invalid key learns nothing about users; then the operation's permission, as
 * its `x-permission` in the contract names it.
 *
 * Credentials come in the JSON body (`api_key`, `api_key_secret`: Kasm's older
 * API and its clients) or by HTTP Basic (`Authorization: Basic
 * base64(api_key:api_key_secret)`: Kasm's current Developer API). Both go
 * through the same check and the same throttle (keys/throttle.ts), and every
 * failure gets the same 401, or 429 once a client has failed too often. Both at once must agree: which one would "win" is not a question
 * the service should answer silently.
 */
import type { Request, RequestHandler } from 'express';
import { API_KEY_PATTERN, type RequiredPermission } from '../../lib/contract/operations.js';
import { isValidKey } from '../keys/api-keys.js';
import type { AuthThrottle } from '../keys/throttle.js';
import { ServiceError, invalidCredentials, permissionDenied } from '../service-errors.js';
import type { Store } from '../store/repositories.js';
import type { Credentials } from '../../lib/contract/credentials.js';
import { requestLogger } from './request-logging.js';

/** What the Authorization header holds: no header, credentials, or something that is not Basic credentials. */
type HeaderCredentials = { kind: 'none' } | { kind: 'basic'; credentials: Credentials } | { kind: 'malformed' };

const BASIC = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i;

function fromHeader(req: Request): HeaderCredentials {
  const header = req.headers.authorization;
  if (header === undefined) return { kind: 'none' };
  const token = BASIC.exec(header)?.[1];
  if (!token) return { kind: 'malformed' };
  const decoded = Buffer.from(token, 'base64');
  const text = new TextDecoder('utf-8', { fatal: false }).decode(decoded);
  const colon = text.indexOf(':');
  if (colon <= 0 || colon === text.length - 1 || Buffer.from(text).compare(decoded) !== 0) return { kind: 'malformed' };
  return { kind: 'basic', credentials: { api_key: text.slice(0, colon), api_key_secret: text.slice(colon + 1) } };
}

function fromBody(req: Request): Credentials | undefined {
  // The validator has made sure both are present together, as non-empty strings.
  const { api_key, api_key_secret } = (req.body ?? {}) as Partial<Credentials>;
  return api_key !== undefined && api_key_secret !== undefined ? { api_key, api_key_secret } : undefined;
}

const disagreement = () => {
  const message = 'differs from the credentials in the Authorization header';
  return new ServiceError(
    400,
    'invalid_request',
    'Invalid request: the credentials in the Authorization header and in the body differ; send them once',
    [{ path: '/body/api_key', message }],
  );
};

export function authenticate(permission: RequiredPermission, store: Store, throttle: AuthThrottle): RequestHandler {
  return async (req, res, next) => {
    if (permission === 'none') return next();
    const header = fromHeader(req);
    const body = fromBody(req);
    if (
      header.kind === 'basic' &&
      body &&
      (header.credentials.api_key !== body.api_key || header.credentials.api_key_secret !== body.api_key_secret)
    ) {
      throw disagreement();
    }
    const credentials = header.kind === 'basic' ? header.credentials : header.kind === 'none' ? body : undefined;
    // A key id the contract would refuse is looked up nowhere (PostgreSQL cannot even hold a NUL).
    const key = credentials && API_KEY_PATTERN.test(credentials.api_key) ? await store.apiKeys.find(credentials.api_key) : undefined;
    if (!credentials || !isValidKey(key, credentials.api_key_secret)) {
      // Valid credentials never reach here, so the throttle can only change how a failure is answered.
      const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
      const { answer, throttledNow } = throttle.fail(address, credentials?.api_key ?? '', invalidCredentials());
      if (throttledNow) {
        requestLogger(req, res).warn(
          // The key id only when a key has it: what was sent in its place could be anything, a secret included.
          { client: address, api_key: key?.api_key ?? null },
          'failed credential checks past the limit: answering 429 to this client and key id for the rest of the window',
        );
      }
      throw answer;
    }
    if (permission !== 'authenticated' && !key.permissions.includes(permission)) throw permissionDenied(permission);
    // Named in the request's log line, and in any line logged through requestLogger from here on.
    res.locals.apiKey = key;
    next();
  };
}
