import type { Express } from 'express';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  /** The middleware; operationRoutes' (http/operation-routes.ts) says which operations it serves. */
  handle?: { served?: readonly string[] };
}

/** An express app's routing table, as `method path`: its routes, and the operations operationRoutes serves. */
export function appRoutes(app: Express): string[] {
  return (app.router.stack as Layer[]).flatMap((layer) => {
    if (layer.route) return [`${Object.keys(layer.route.methods)[0]} ${layer.route.path}`];
    return layer.handle?.served ?? [];
  });
}
