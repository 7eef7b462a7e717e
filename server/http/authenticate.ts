/**
 * Checks the body's credentials before anything else is looked up (spec
 * section 5), so an invalid key learns nothing about users; then the
 * operation's permission, as its `x-permission` in the contract names it.
 */
import type { RequestHandler } from 'express';
import { isValidKey } from '../auth/api-keys.js';
import type { AuthThrottle } from '../auth/throttle.js';
import type { RequiredPermission } from '../contract.js';
import { invalidCredentials, permissionDenied } from '../errors.js';
import type { Store } from '../store/store.js';

export function authenticate(permission: RequiredPermission, store: Store, throttle: AuthThrottle): RequestHandler {
  return async (req, res, next) => {
    if (permission === 'none') return next();
    const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    await throttle.assertAllowed(address);
    // The validator has already made sure both are non-empty strings.
    const { api_key, api_key_secret } = req.body as { api_key: string; api_key_secret: string };
    const key = await store.findApiKey(api_key);
    if (!isValidKey(key, api_key_secret)) {
      await throttle.recordFailure(address);
      throw invalidCredentials();
    }
    if (permission !== 'authenticated' && !key.permissions.includes(permission)) throw permissionDenied(permission);
    // Named in the request's log line, and in any line logged through requestLogger from here on.
    res.locals.apiKey = key;
    next();
  };
}
