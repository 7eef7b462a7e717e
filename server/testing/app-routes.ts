import type { Express } from 'express';

/** An express app's routing table, as `method path`. */
export function appRoutes(app: Express): string[] {
  return (app.router.stack as { route?: { path: string; methods: Record<string, boolean> } }[])
    .filter((layer) => layer.route)
    .map((layer) => `${Object.keys(layer.route!.methods)[0]} ${layer.route!.path}`);
}
