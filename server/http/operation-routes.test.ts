/**
 * The contract's operations found by method and path in one lookup (operation-routes.ts): each
 * request reaches its operation's handlers as express's router would hand it, and nothing else does.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { operationRoutes } from './operation-routes.js';

const served =
  (name: string): RequestHandler =>
  (_req, res) =>
    void res.set('X-Served', name).send(name);

/** Answers with `name` and the path's `id`, as the operation's router decoded it. */
const servedWithId =
  (name: string): RequestHandler =>
  (req, res) =>
    void res.set('X-Served', `${name} ${String(req.params.id)}`).send(`${name} ${String(req.params.id)}`);

describe('operationRoutes', () => {
  let server: Server;
  let base: string;

  before(async () => {
    const app = express();
    app.set('case sensitive routing', true);
    app.set('strict routing', true);
    const seen: RequestHandler = (_req, res, next) => {
      res.set('X-Seen', 'yes');
      next();
    };
    app.use(
      operationRoutes([
        { method: 'get', path: '/a', handlers: [seen, served('get a')] },
        { method: 'head', path: '/a', handlers: [served('head a')] },
        { method: 'get', path: '/b', handlers: [served('get b')] },
        { method: 'post', path: '/c', handlers: [seen, served('post c')] },
        { method: 'get', path: '/users/:id', handlers: [seen, servedWithId('get user')] },
        { method: 'patch', path: '/users/:id', handlers: [servedWithId('patch user')] },
        { method: 'get', path: '/users', handlers: [served('get users')] },
        {
          method: 'post',
          path: '/fails',
          handlers: [
            async () => {
              throw new Error('the handler failed');
            },
          ],
        },
      ]),
    );
    app.use((_req, res) => void res.status(404).send('no operation'));
    const answerError: ErrorRequestHandler = (error: Error & { status?: number }, _req, res, _next) =>
      void res.status(error.status ?? 500).send(error.message);
    app.use(answerError);
    server = app.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server.close());

  const request = async (method: string, path: string) => {
    const response = await fetch(`${base}${path}`, { method });
    return {
      status: response.status,
      served: response.headers.get('X-Served'),
      seen: response.headers.get('X-Seen'),
      body: await response.text(),
    };
  };

  it("runs every handler of the operation at the request's method and path, in order", async () => {
    assert.deepEqual(await request('POST', '/c'), { status: 200, served: 'post c', seen: 'yes', body: 'post c' });
    assert.deepEqual(await request('GET', '/a'), { status: 200, served: 'get a', seen: 'yes', body: 'get a' });
    assert.deepEqual(await request('GET', '/a?x=1'), { status: 200, served: 'get a', seen: 'yes', body: 'get a' });
  });

  it('finds an operation whose last segment is a parameter, and gives the handlers the parameter decoded', async () => {
    assert.deepEqual(await request('GET', '/users/abc'), { status: 200, served: 'get user abc', seen: 'yes', body: 'get user abc' });
    assert.deepEqual(await request('PATCH', '/users/abc'), { status: 200, served: 'patch user abc', seen: null, body: 'patch user abc' });
    assert.equal((await request('GET', '/users/a%20b%2Fc')).served, 'get user a b/c');
    assert.equal((await request('HEAD', '/users/abc')).served, 'get user abc');
    assert.equal((await request('GET', '/users')).served, 'get users');
    // A parameter that is not percent-encoded UTF-8: express's router refuses it with a 400.
    assert.deepEqual(await request('GET', '/users/%E0%A4%A'), {
      status: 400,
      served: null,
      seen: null,
      body: "Failed to decode param '%E0%A4%A'",
    });
  });

  it('serves a HEAD by the HEAD operation at its path, and without one by the GET there', async () => {
    assert.deepEqual(await request('HEAD', '/a'), { status: 200, served: 'head a', seen: null, body: '' });
    assert.deepEqual(await request('HEAD', '/b'), { status: 200, served: 'get b', seen: null, body: '' });
  });

  it('leaves to the next handler any other method, spelling or path', async () => {
    for (const [method, path] of [
      ['POST', '/a'],
      ['GET', '/c'],
      ['HEAD', '/c'],
      ['GET', '/a/'],
      ['GET', '/A'],
      ['GET', '/a/b'],
      // Other spellings of the same path: percent-encoded, and with its slash doubled.
      ['GET', '/%61'],
      ['POST', '/%63'],
      ['GET', '//a'],
      ['GET', '/'],
      // A parameter's path: another method, an empty or a further segment, another case, a doubled slash.
      ['POST', '/users/abc'],
      ['GET', '/users/'],
      ['GET', '/users/abc/'],
      ['GET', '/users/abc/def'],
      ['GET', '/Users/abc'],
      ['GET', '/users//abc'],
    ] as const) {
      const answer = await request(method, path);
      assert.equal(answer.status, 404, `${method} ${path}`);
      assert.equal(answer.served, null, `${method} ${path}`);
    }
  });

  it("hands a handler's rejected promise to the error handler", async () => {
    assert.deepEqual(await request('POST', '/fails'), { status: 500, served: null, seen: null, body: 'the handler failed' });
  });

  it('says which operations it serves, as `method path`', () => {
    const routes = operationRoutes([
      { method: 'head', path: '/a', handlers: [served('head a')] },
      { method: 'post', path: '/c', handlers: [served('post c')] },
    ]);
    assert.deepEqual(routes.served, ['head /a', 'post /c']);
  });

  it('takes fixed paths, or with a parameter as their last segment, one operation each', () => {
    for (const path of ['/users/:id/groups', '/users/{id}', '/users/*rest', '/users/:id?', '//users', '']) {
      assert.throws(
        () => operationRoutes([{ method: 'get', path, handlers: [served('x')] }]),
        /a parameter as its last segment at most/,
        path,
      );
    }
    assert.throws(
      () =>
        operationRoutes([
          { method: 'get', path: '/users/:id', handlers: [served('x')] },
          { method: 'get', path: '/users/me', handlers: [served('x')] },
        ]),
      /GET \/users\/me: a parameter's path takes it too/,
    );
    assert.doesNotThrow(() =>
      operationRoutes([
        { method: 'get', path: '/users/:id', handlers: [served('x')] },
        { method: 'post', path: '/users/me', handlers: [served('x')] },
      ]),
    );
    assert.throws(
      () =>
        operationRoutes([
          { method: 'get', path: '/users/:id', handlers: [served('x')] },
          { method: 'get', path: '/users/:name', handlers: [served('x')] },
        ]),
      /GET \/users\/:name: two operations/,
    );
    assert.throws(
      () =>
        operationRoutes([
          { method: 'post', path: '/c', handlers: [served('one')] },
          { method: 'post', path: '/c', handlers: [served('two')] },
        ]),
      /POST \/c: two operations/,
    );
  });
});
