/**
 * A body with a long list serialized in parts (json-in-parts.ts): the very bytes
 * `JSON.stringify` writes, and the headers express's `res.json` sends.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import express, { type Express } from 'express';
import { answerLongListsInParts, jsonInParts, SLICE_ITEMS } from './json-in-parts.js';

const event = (index: number) => ({
  position: index,
  event: {
    event_id: `01a2242b-1dbd-73fb-94f0-${String(index).padStart(12, '0')}`,
    type: index % 3 === 0 ? 'user.updated' : 'group.member_added',
    timestamp: new Date(Date.UTC(2026, 10, 28, 0, 0, index)),
    data: {
      resource: { type: 'user', id: `u${index}`, version: index % 7 },
      changed: index % 2 ? ['first_name', 'phone'] : [],
      actor: { type: 'api_key', id: index % 5 ? 'k1' : null },
      request_id: index % 4 ? `r"${index}\n\u2028é😀\ud800` : undefined,
    },
  },
});

const events = (count: number) => Array.from({ length: count }, (_, index) => event(index));

describe('jsonInParts', () => {
  it('writes what JSON.stringify writes, for a page of 1,000 events and around it', () => {
    const bodies: object[] = [
      { events: events(1000), next_cursor: 'abc', more: true },
      // The first property left out, so the comma after it must be too; a list at the start and one after it.
      { skipped: undefined, events: events(SLICE_ITEMS + 1), also: () => 1, users: events(250), total: 250 },
      { events: [...events(SLICE_ITEMS * 2 - 1), undefined, () => 1, Symbol('s'), null, new Date(0)] },
      { events: events(SLICE_ITEMS * 3), empty: [], nested: { list: events(300) } },
    ];
    for (const body of bodies) {
      const bytes = jsonInParts(body);
      assert.ok(bytes, 'a body with a long list is serialized in parts');
      assert.equal(bytes.toString('utf8'), JSON.stringify(body));
    }
  });

  it('leaves a body without a long list, or one that serializes itself, to be serialized whole', () => {
    for (const body of [
      { events: events(SLICE_ITEMS) },
      { user: event(1) },
      events(1000),
      'text',
      null,
      42,
      { events: events(1000), toJSON: () => 'mine' },
    ]) {
      assert.equal(jsonInParts(body), undefined, JSON.stringify(body)?.slice(0, 80));
    }
  });
});

describe('answerLongListsInParts', () => {
  const big = { events: events(1000), more: false };
  let served: Server[] = [];
  const seenByWrapper: unknown[] = [];

  /** The same routes on express as it comes and on an app that answers long lists in parts. */
  async function serve(inParts: boolean): Promise<string> {
    const app: Express = express();
    if (inParts) answerLongListsInParts(app);
    // As express-openapi-validator's check of answers does: res.json wrapped for the request.
    app.use((_req, res, next) => {
      const json = res.json.bind(res);
      res.json = (body: unknown) => {
        if (inParts) seenByWrapper.push(body);
        return json(body);
      };
      next();
    });
    app.get('/big', (_req, res) => void res.json(big));
    app.get('/scim', (_req, res) => void res.type('application/scim+json').json({ Resources: events(150), totalResults: 150 }));
    app.get('/small', (_req, res) => void res.status(201).json({ user: event(1) }));
    const server = app.listen(0, '127.0.0.1');
    served.push(server);
    await once(server, 'listening');
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  let whole: string;
  let parted: string;
  before(async () => {
    [whole, parted] = await Promise.all([serve(false), serve(true)]);
  });
  after(async () => {
    await Promise.all(served.map((server) => new Promise((resolve) => server.close(resolve))));
    served = [];
  });

  for (const path of ['/big', '/scim', '/small']) {
    it(`answers ${path} with express's status, headers and bytes`, async () => {
      const [expected, actual] = await Promise.all([fetch(`${whole}${path}`), fetch(`${parted}${path}`)]);
      assert.equal(actual.status, expected.status);
      for (const header of ['content-type', 'content-length']) {
        assert.equal(actual.headers.get(header), expected.headers.get(header), header);
      }
      assert.equal(await actual.text(), await expected.text());
    });
  }

  it('lets what wraps res.json see the object before it is serialized', async () => {
    seenByWrapper.length = 0;
    await (await fetch(`${parted}/big`)).arrayBuffer();
    assert.deepEqual(seenByWrapper, [big]);
  });
});
