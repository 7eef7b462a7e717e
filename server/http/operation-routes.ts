/**
 * A contract's operations as one middleware that finds a request's operation by its method and
 * path in a single lookup. express's router tries each route's path in turn, every layer before
 * it included: update_user's route was the fifteenth, and the router's layers and their path
 * matching took about 30 µs of update_user's 600 in its profile, of which this takes about 7
 * away; a SCIM request matched its path against each SCIM route before its own, decoding the
 * `:id` of every one that matched (BENCHMARKS.md).
 *
 * A path is a fixed one, or a fixed one with a parameter as its last segment
 * (`/scim/v2/Users/:id`), which is what lets a map find it: by the path exactly as sent, then by
 * the path's last segment taken as the parameter. The map holds the path exactly as sent, as the
 * app's strict and case-sensitive routing matches it (`/API/PUBLIC/…` and a trailing slash are no
 * operation's). Each operation keeps a router of its own, which matches the path again, decodes
 * the parameter into `req.params`, and runs the operation's handlers as express runs a route's: a
 * rejected promise is the request's error. A HEAD request is served by the HEAD operation at its
 * path, and without one by the GET there, as express's router serves it.
 */
import { type RequestHandler, Router } from 'express';

export interface OperationRoute {
  method: 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  handlers: RequestHandler[];
}

/** The middleware, and the operations it serves as `method path` (for the tests' routing table, testing/app-routes.ts). */
export type OperationRoutes = RequestHandler & { readonly served: readonly string[] };

/** A fixed path, or one whose last segment, and only it, is a parameter (`:id`). */
const FIXED_PATH = /^\/$|^(\/[^/:{}*()?+]+)+$/;
const WITH_PARAMETER = /^((?:\/[^/:{}*()?+]+)*)\/:\w+$/;

/** The key of a path with a parameter: the fixed part and a slash, which no request's path ends with when it has a last segment. */
const parameterKey = (method: string, fixedPart: string) => `${method} ${fixedPart}/:`;

export function operationRoutes(routes: readonly OperationRoute[]): OperationRoutes {
  const byMethodAndPath = new Map<string, RequestHandler>();
  for (const { method, path, handlers } of routes) {
    const named = `${method.toUpperCase()} ${path}`;
    const withParameter = WITH_PARAMETER.exec(path);
    if (!withParameter && !FIXED_PATH.test(path)) {
      throw new Error(`${named}: an operation's path here is a fixed one, with a parameter as its last segment at most`);
    }
    const key = withParameter ? parameterKey(method.toUpperCase(), withParameter[1] ?? '') : named;
    if (byMethodAndPath.has(key)) throw new Error(`${named}: two operations`);
    const router = Router({ caseSensitive: true, strict: true });
    router[method](path, ...handlers);
    byMethodAndPath.set(key, router);
  }
  for (const key of byMethodAndPath.keys()) {
    // A fixed path that a parameter's path would match too: express would take whichever came first.
    const space = key.indexOf(' ');
    const path = key.slice(space + 1);
    if (!key.endsWith('/:') && byMethodAndPath.has(parameterKey(key.slice(0, space), path.slice(0, path.lastIndexOf('/'))))) {
      throw new Error(`${key}: a parameter's path takes it too`);
    }
  }
  const find = (method: string, path: string) =>
    byMethodAndPath.get(`${method} ${path}`) ?? byMethodAndPath.get(parameterKey(method, path.slice(0, path.lastIndexOf('/'))));
  const dispatch: RequestHandler = (req, res, next) => {
    const route = find(req.method, req.path) ?? (req.method === 'HEAD' ? find('GET', req.path) : undefined);
    if (route) route(req, res, next);
    else next();
  };
  return Object.assign(dispatch, { served: routes.map(({ method, path }) => `${method} ${path}`) });
}
