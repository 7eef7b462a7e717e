/**
 * The contract's operations as one middleware that finds a request's operation by its method
 * and path in a single lookup. express's router tries each route's path in turn, every layer
 * before it included: update_user's route was the fifteenth, and the router's layers and their
 * path matching took about 30 µs of update_user's 600 in its profile, of which this takes about
 * 7 away (BENCHMARKS.md); the rest is the layers every request passes through.
 *
 * Every path of the contract is a fixed one, with no parameter in it, which is what lets a map
 * find it; the map holds the path exactly as sent, as the app's strict and case-sensitive
 * routing matches it (`/API/PUBLIC/…` and a trailing slash are no operation's). Each operation
 * keeps a router of its own, so that its handlers run as express runs a route's: a rejected
 * promise is the request's error. A HEAD request is served by the HEAD operation at its path,
 * and without one by the GET there, as express's router serves it.
 */
import { type RequestHandler, Router } from 'express';

export interface OperationRoute {
  method: 'get' | 'head' | 'post';
  path: string;
  handlers: RequestHandler[];
}

/** The middleware, and the operations it serves as `method path` (for the tests' routing table, testing/app-routes.ts). */
export type OperationRoutes = RequestHandler & { readonly served: readonly string[] };

export function operationRoutes(routes: readonly OperationRoute[]): OperationRoutes {
  const byMethodAndPath = new Map<string, RequestHandler>();
  for (const { method, path, handlers } of routes) {
    if (/[:{*]/.test(path)) throw new Error(`${method} ${path}: an operation's path here must be a fixed one`);
    const key = `${method.toUpperCase()} ${path}`;
    if (byMethodAndPath.has(key)) throw new Error(`${key}: two operations`);
    const router = Router({ caseSensitive: true, strict: true });
    router[method](path, ...handlers);
    byMethodAndPath.set(key, router);
  }
  const dispatch: RequestHandler = (req, res, next) => {
    const route =
      byMethodAndPath.get(`${req.method} ${req.path}`) ?? (req.method === 'HEAD' ? byMethodAndPath.get(`GET ${req.path}`) : undefined);
    if (route) route(req, res, next);
    else next();
  };
  return Object.assign(dispatch, { served: routes.map(({ method, path }) => `${method} ${path}`) });
}
