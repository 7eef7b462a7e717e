/**
 * SCIM mounted beside the workspace API (routes.ts): its contract's checks see SCIM's requests
 * and no other, so that a request of the workspace API does not pay for them.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express, { type RequestHandler } from 'express';
import type { CredentialCheck } from '../http/authenticate.js';
import type { IdempotentRequests } from '../http/idempotency.js';
import { appRoutes } from '../testing/app-routes.js';
import { mountScim } from './routes.js';
import type { ScimHandlers } from './types.js';

describe('mountScim', () => {
  let server: Server;
  let base: string;
  let app: express.Express;
  const checked: string[] = [];

  before(async () => {
    app = express();
    app.set('case sensitive routing', true);
    app.set('strict routing', true);
    // Stands in for the SCIM contract's validator: notes each request it is given, and refuses one path.
    const validation: RequestHandler = (req, res, next) => {
      checked.push(req.originalUrl);
      if (req.path === '/scim/v2/Refused') return void res.status(400).send('refused by the contract');
      next();
    };
    mountScim(app, {
      handlers: {} as ScimHandlers,
      credentials: {} as CredentialCheck,
      idempotent: { for: (): RequestHandler => (_req, _res, next) => next() } as unknown as IdempotentRequests,
      validation: [validation],
    });
    app.use((_req, res) => void res.status(404).send('the workspace API'));
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('gives its contract SCIM requests, with their paths whole, and no request of another path', async () => {
    checked.length = 0;
    const workspace = await fetch(`${base}/api/public/get_users`, { method: 'POST' });
    assert.equal(await workspace.text(), 'the workspace API');
    const scimElsewhere = await fetch(`${base}/SCIM/v2/Users`);
    assert.equal(await scimElsewhere.text(), 'the workspace API');
    const refused = await fetch(`${base}/scim/v2/Refused?x=1`);
    assert.equal(refused.status, 400);
    assert.equal(await refused.text(), 'refused by the contract');
    const unknown = await fetch(`${base}/scim/v2/Nothing`);
    assert.equal(unknown.status, 404);
    assert.match(unknown.headers.get('content-type') ?? '', /scim\+json/);
    assert.deepEqual(checked, ['/scim/v2/Refused?x=1', '/scim/v2/Nothing']);
  });

  it('keeps its operations in the routing table', () => {
    const routes = appRoutes(app);
    assert.ok(routes.includes('get /scim/v2/Users/:id'), routes.join(', '));
    assert.ok(routes.includes('patch /scim/v2/Groups/:id'), routes.join(', '));
  });
});
