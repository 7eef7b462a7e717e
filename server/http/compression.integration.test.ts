/**
 * Compression and caching (http/compression.ts, http/documentation.ts): the
 * answers a client asks compressed come as Brotli or gzip, and decode to
 * exactly the plain answer, the streamed listing of every user included;
 * small answers stay plain; /docs is cacheable with revalidation, the API's
 * answers never cached.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { startTestService, type TestService } from '../testing/service.js';

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/** One exchange as bytes: node:http leaves the body as the server encoded it (fetch would decode it). */
function exchange(url: string, init: { method: string; headers?: Record<string, string>; body?: string }): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { method: init.method, headers: init.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    sent.on('error', reject);
    sent.end(init.body);
  });
}

const DECODE: Record<string, (bytes: Buffer) => Buffer> = { br: brotliDecompressSync, gzip: gunzipSync };

describe('compression and caching', () => {
  let service: TestService;
  const post = (operation: string, body: object, encoding: string) =>
    exchange(`${service.baseUrl}/api/public/${operation}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Accept-Encoding': encoding },
      body: JSON.stringify({ ...service.admin, ...body }),
    });

  before(async () => {
    service = await startTestService();
    for (let n = 0; n < 40; n++) {
      const made = await service.callAsAdmin('create_user', {
        target_user: { username: `listed-${n}@example.com`, organization: 'Compressed Inc.' },
      });
      assert.equal(made.status, 200);
    }
  });
  after(() => service.close());

  it('streams the listing of every user compressed as asked, decoding to exactly the plain listing', async () => {
    const plain = await post('get_users', {}, 'identity');
    assert.equal(plain.status, 200);
    assert.equal(plain.headers['content-encoding'], undefined);
    const users = JSON.parse(plain.bytes.toString('utf8')).users as unknown[];
    assert.ok(users.length >= 40);
    for (const [asked, encoding] of [
      ['br', 'br'],
      ['gzip', 'gzip'],
      ['gzip, deflate, br', 'br'],
    ] as const) {
      const answer = await post('get_users', {}, asked);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers['content-encoding'], encoding, asked);
      assert.equal(answer.headers['transfer-encoding'], 'chunked', 'streamed, not buffered to learn its length');
      assert.match(String(answer.headers.vary), /Accept-Encoding/);
      assert.equal(answer.headers['cache-control'], 'no-store');
      assert.ok(answer.bytes.length < plain.bytes.length / 4, `${encoding}: ${answer.bytes.length} of ${plain.bytes.length} bytes`);
      assert.deepEqual(JSON.parse(DECODE[encoding]!(answer.bytes).toString('utf8')), JSON.parse(plain.bytes.toString('utf8')));
    }
  });

  it('compresses a page of users, and leaves an answer under a kilobyte plain', async () => {
    const page = await post('get_users', { page: 0, page_size: 40 }, 'gzip');
    assert.equal(page.headers['content-encoding'], 'gzip');
    assert.equal(JSON.parse(gunzipSync(page.bytes).toString('utf8')).users.length, 40);
    const small = await post('validate_credentials', {}, 'gzip, br');
    assert.equal(small.status, 200);
    assert.equal(small.headers['content-encoding'], undefined);
    assert.equal(JSON.parse(small.bytes.toString('utf8')).name, 'test key');
  });

  it('serves /docs compressed and cacheable with revalidation: 304 when the tag still matches', async () => {
    const page = await exchange(`${service.baseUrl}/docs`, { method: 'GET', headers: { 'Accept-Encoding': 'br' } });
    assert.equal(page.status, 200);
    assert.equal(page.headers['content-encoding'], 'br');
    assert.equal(page.headers['cache-control'], 'no-cache');
    const tag = String(page.headers.etag);
    assert.match(tag, /^"[0-9a-f]{32}-br"$/, 'a tag of its own for each coding');
    assert.match(brotliDecompressSync(page.bytes).toString('utf8'), /<title>Workspace User API reference<\/title>/);

    for (const method of ['GET', 'HEAD']) {
      const again = await exchange(`${service.baseUrl}/docs`, { method, headers: { 'If-None-Match': tag, 'Accept-Encoding': 'br' } });
      assert.equal(again.status, 304, method);
      assert.equal(again.bytes.length, 0);
    }
    const other = await exchange(`${service.baseUrl}/docs`, {
      method: 'GET',
      headers: { 'If-None-Match': tag, Host: 'docs.example.com:8443' },
    });
    assert.equal(other.status, 200, 'read at another address, it is another page');
    const changed = await exchange(`${service.baseUrl}/docs`, {
      method: 'GET',
      headers: { 'If-None-Match': '"00000000000000000000000000000000"' },
    });
    assert.equal(changed.status, 200);
  });

  it("names as the page's server the address it is read at, and nothing a Host header could smuggle in", async () => {
    const at = async (host: string) =>
      (await exchange(`${service.baseUrl}/docs`, { method: 'GET', headers: { Host: host } })).bytes.toString('utf8');
    const named = await at('docs.example.com:8443');
    assert.ok(named.includes('"url":"http://docs.example.com:8443"'), 'the address, port included');
    assert.ok(!named.includes('served-address.invalid'));
    for (const hostile of ['evil.example"onload="x', 'a<b', 'x\\y']) {
      const page = await at(hostile);
      assert.ok(page.includes('"url":"/"'), `${hostile}: the page names no address`);
      assert.ok(!page.includes(hostile), `${hostile} is not in the page`);
    }
  });
});
