/**
 * What an attacker would send, each answered with a clear 4xx in the
 * contract's error shape, no row changed, and no secret in the log: the
 * findings of a black-box probe of the service, replayed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { once } from 'node:events';
import { connect } from 'node:net';
import { BODY_LIMIT_BYTES, JSON_DEPTH_LIMIT } from '../../lib/contract/operations.js';
import { rawRequest } from '../../lib/testing/raw-http.js';
import { type Answer, startTestService, type TestService } from '../testing/service.js';
import { bearerToken } from '../testing/scim-client.js';

function assertError(answer: Answer, status: number, code: string): void {
  assert.equal(answer.status, status, answer.text);
  assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
  assert.equal(answer.body.code, code, answer.text);
}

/** Everything a test could have changed: every user, as the service stores them. */
async function snapshot(service: TestService): Promise<string> {
  const users = await service.store.users.list({ pageSize: 500, sortBy: 'username', sortDirection: 'asc', start: { skip: 0 } });
  return JSON.stringify(users);
}

describe('hostile input', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  it('never logs a secret, whether it comes in the query, the body or a header', async () => {
    const secrets = ['Hunter2-Secret!', 'Qx9-query-secret-77', 'Zz8-header-secret-55', 'Bb7-body-secret-33', service.admin.api_key_secret];
    const [password, querySecret, headerSecret, bodySecret] = secrets;
    const query = `?password=${encodeURIComponent(password!)}&api_key_secret=${querySecret}`;
    const headers = {
      'Content-Type': 'application/json',
      Authorization: `Bearer ${headerSecret}`,
      Cookie: `session=${headerSecret}`,
      'X-Api-Key-Secret': headerSecret!,
    };
    const answers = [
      await service.request(`/api/public/create_user${query}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ ...service.admin, target_user: { username: 'q@example.com' } }),
      }),
      await service.request(`/healthz${query}`, { headers }),
      await service.request(`/api/public/no_such_route${query}`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ api_key_secret: bodySecret }),
      }),
      await service.send('create_user', {
        ...service.admin,
        target_user: { username: 'w@example.com', password: bodySecret, secret: bodySecret },
      }),
      await service.call('update_user', {
        api_key: service.admin.api_key,
        api_key_secret: bodySecret,
        target_user: { user_id: 'a'.repeat(32), password: password },
      }),
      await service.request('/api/public/get_groups', { method: 'POST', headers, body: `{"api_key_secret":"${bodySecret}",` }),
    ];
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [400, 400, 404, 200, 401, 400],
    );
    // An unknown key is ignored as Kasm ignores it: neither echoed nor (below) logged.
    assert.equal(JSON.stringify(answers[3]!.body).includes(bodySecret!), false);
    const logged = service.logs();
    assert.match(logged, /"url":"\/api\/public\/create_user","queryLength":\d+/, 'the path is logged, the query only by its length');
    for (const secret of secrets) {
      for (const form of [secret, encodeURIComponent(secret)]) assert.ok(!logged.includes(form), `the log holds ${form}`);
    }
  });

  describe('request bodies it cannot read faithfully', () => {
    const body = () => JSON.stringify({ ...service.admin, target_user: { username: 'compressed@example.com' } });
    for (const [encoding, compress] of [
      ['gzip', gzipSync],
      ['deflate', deflateSync],
      ['br', brotliCompressSync],
    ] as const) {
      it(`415 for a ${encoding} body, well-formed or not, before any credential check`, async () => {
        const before = await snapshot(service);
        for (const payload of [compress(body()), Buffer.from('not compressed at all')]) {
          const answer = await service.request('/api/public/create_user', {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'Content-Encoding': encoding },
            body: payload,
          });
          assertError(answer, 415, 'unsupported_media_type');
        }
        assert.equal(await snapshot(service), before);
      });
    }

    it('400 for bytes that are not UTF-8, and for an unpaired surrogate, instead of storing U+FFFD', async () => {
      const user = await service.createUser({ first_name: 'Intact' });
      const before = await snapshot(service);
      const prefix = Buffer.from(
        JSON.stringify({ ...service.admin, target_user: { user_id: user.user_id, first_name: 'X' } }).slice(0, -3),
      );
      const bodies = [
        Buffer.concat([prefix, Buffer.from([0xff, 0xfe]), Buffer.from('"}}')]), // not UTF-8 at all
        Buffer.concat([prefix, Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}')]), // a surrogate encoded as UTF-8
        Buffer.concat([prefix, Buffer.from('\\ud800"}}')]), // valid JSON, but not Unicode text
        Buffer.from(JSON.stringify({ ...service.admin, target_user: { user_id: user.user_id } }).replace('"api_key"', '"api_\\udfff"')),
      ];
      for (const payload of bodies) {
        const answer = await service.request('/api/public/update_user', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: payload,
        });
        assertError(answer, 400, 'invalid_request');
      }
      for (const charset of ['utf-16', 'utf-16le', 'latin1']) {
        const answer = await service.request('/api/public/get_groups', {
          method: 'POST',
          headers: { 'Content-Type': `application/json; charset=${charset}` },
          body: JSON.stringify(service.admin),
        });
        assertError(answer, 415, 'unsupported_media_type');
      }
      assert.equal(await snapshot(service), before);
      assert.equal((await service.callAsAdmin('get_groups')).status, 200, 'a UTF-8 body with a charset parameter still works');
    });

    it('400 for U+0000 in a string, a key or the URL, which PostgreSQL cannot store, on both doors; a backslash before u0000 is text', async () => {
      const user = await service.createUser({ first_name: 'Intact' });
      const before = await snapshot(service);
      const update = (target_user: object) => JSON.stringify({ ...service.admin, target_user: { user_id: user.user_id, ...target_user } });
      for (const body of [
        update({ first_name: 'Nul\u0000here' }),
        update({ organization: '\u0000' }),
        update({}).replace('"api_key"', '"api_\\u0000key"'),
      ]) {
        const answer = await service.request('/api/public/update_user', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body,
        });
        assertError(answer, 400, 'invalid_request');
        assert.match(answer.body.error_message, /U\+0000/);
      }
      assert.equal(await snapshot(service), before);
      const backslash = await service.callAsAdmin('update_user', { target_user: { user_id: user.user_id, last_name: 'a\\u0000b' } });
      assert.equal(backslash.status, 200, backslash.text);
      assert.equal(backslash.body.user.last_name, 'a\\u0000b', 'six characters of text, kept as sent');
      const beforeScim = await snapshot(service);

      const scim = (path: string, init: RequestInit = {}) =>
        service.request(`/scim/v2${path}`, {
          ...init,
          headers: { Authorization: bearerToken(service.admin), 'Content-Type': 'application/scim+json', ...init.headers },
        });
      for (const answer of [
        await scim(`/Users/${user.user_id}%00`),
        await scim(`/Users?filter=${encodeURIComponent('userName eq "a\u0000"')}`),
        await scim('/Users', {
          method: 'POST',
          body: JSON.stringify({
            schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
            userName: 'nul@example.com',
            externalId: 'ext\u0000',
          }),
        }),
      ]) {
        assert.equal(answer.status, 400, answer.text);
        assert.equal(answer.body.scimType, 'invalidSyntax', answer.text);
        assert.match(answer.body.detail, /U\+0000/);
      }
      assert.equal(await snapshot(service), beforeScim);
    });

    it('413 at once for a declared Content-Length over the limit, without reading the body, and closes the connection', async () => {
      const head = (length: number, extra = '') =>
        `POST /api/public/get_groups HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;
      // 10 GB declared, not a byte sent: the answer cannot have waited for the body.
      const huge = await rawRequest(service.baseUrl, head(10_000_000_000), { waitMs: 5_000 });
      assert.equal(huge.status, 413);
      assert.equal(JSON.parse(huge.body).code, 'payload_too_large');
      assert.ok(huge.closed, 'the connection is closed');
      assert.ok(huge.elapsedMs < 3_000, `answered after ${huge.elapsedMs} ms`);
      // A client that asks first is told no, and never invited to send.
      const asking = await rawRequest(service.baseUrl, head(BODY_LIMIT_BYTES + 1, 'Expect: 100-continue\r\n'), { waitMs: 5_000 });
      assert.deepEqual(asking.statuses, [413]);
      assert.ok(asking.closed);
      // A body within the limit, asked for politely, is invited and read.
      const body = JSON.stringify(service.admin);
      const polite = await rawRequest(service.baseUrl, head(Buffer.byteLength(body), 'Expect: 100-continue\r\nConnection: close\r\n'), {
        waitMs: 5_000,
        trickle: { parts: [body], intervalMs: 300 },
      });
      assert.deepEqual(polite.statuses, [100, 200]);
    });

    it('413 for a chunked body as soon as it passes the limit (of a 10 MB one, at most the limit and a chunk read), and closes the connection', async () => {
      const { hostname, port } = new URL(service.baseUrl);
      const socket = connect(Number(port), hostname);
      socket.on('error', () => {});
      await once(socket, 'connect');
      socket.write(
        'POST /api/public/get_groups HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      );
      let answer = '';
      let closed = false;
      socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      socket.on('close', () => (closed = true));
      const chunk = 4_096;
      let sent = 0;
      // One chunk at a time, each given a moment to be answered: the answer cannot hide behind a full buffer.
      while (answer === '' && !closed && sent < 10_000_000) {
        socket.write(`${chunk.toString(16)}\r\n${' '.repeat(chunk)}\r\n`);
        sent += chunk;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert.match(answer, /^HTTP\/1\.1 413 [\s\S]*"code":"payload_too_large"/);
      assert.ok(sent <= BODY_LIMIT_BYTES + 2 * chunk, `answered after ${sent} bytes`);
      for (let waited = 0; !closed && waited < 1_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(closed, 'the connection is closed');
      socket.destroy();
    });
  });

  it('answers malformed and smuggling-prone HTTP with a JSON 400 and closes the connection', async () => {
    const before = await snapshot(service);
    const body = JSON.stringify({ ...service.admin, target_user: { username: 'smuggled@example.com' } });
    const requests = [
      // Two lengths: which one a proxy believes decides where the next request starts.
      `POST /api/public/create_user HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nContent-Length: 5\r\n\r\n${body}`,
      // Both a length and chunked.
      `POST /api/public/create_user HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
      // An obfuscated Transfer-Encoding.
      `POST /api/public/create_user HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: xchunked\r\n\r\n${body}`,
      // A header name with a space before its colon, and a bare LF line ending.
      `POST /api/public/create_user HTTP/1.1\r\nHost: x\r\nContent-Length : ${body.length}\r\n\r\n${body}`,
      `GET /healthz HTTP/1.1\nHost: x\n\n`,
      // No Host.
      'GET /healthz HTTP/1.1\r\n\r\n',
    ];
    for (const request of requests) {
      const answer = await rawRequest(service.baseUrl, request, { waitMs: 3_000 });
      assert.ok(answer.status >= 400 && answer.status < 500, `${JSON.stringify(request.slice(0, 80))} got ${answer.status}`);
      assert.match(answer.headers['content-type'] ?? '', /^application\/json/, JSON.stringify(request.slice(0, 80)));
      assert.equal(typeof JSON.parse(answer.body).error_message, 'string');
      assert.ok(answer.closed);
    }
    const longHeader = await rawRequest(service.baseUrl, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Long: ${'a'.repeat(70_000)}\r\n\r\n`, {
      waitMs: 3_000,
    });
    assert.equal(longHeader.status, 431);
    assert.equal(JSON.parse(longHeader.body).code, 'payload_too_large');
    // Under /scim/v2, in SCIM's shape and media type, as every other SCIM answer.
    const scimLongHeader = await rawRequest(
      service.baseUrl,
      `GET /scim/v2/Users?count=1 HTTP/1.1\r\nHost: x\r\nX-Long: ${'a'.repeat(70_000)}\r\n\r\n`,
      { waitMs: 3_000 },
    );
    assert.equal(scimLongHeader.status, 431);
    assert.match(scimLongHeader.headers['content-type'] ?? '', /^application\/scim\+json/);
    assert.deepEqual(JSON.parse(scimLongHeader.body), {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '431',
      scimType: 'tooLarge',
      detail: 'Request headers are too large',
    });
    assert.equal(await snapshot(service), before);
  });

  it('answers JSON nested past the documented depth with 400 before authenticating, an unpaired surrogate inside included, and logs no stack', async () => {
    const deep = `{"api_key":"x","api_key_secret":"y","a":${'['.repeat(5_000)}"\\ud800"${']'.repeat(5_000)}}`;
    const answer = await service.request('/api/public/get_groups', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: deep,
    });
    assertError(answer, 400, 'invalid_request');
    assert.match(answer.body.error_message, new RegExp(`nested more than ${JSON_DEPTH_LIMIT} deep`));
    const shallowEnough = `{"a":${'['.repeat(JSON_DEPTH_LIMIT - 1)}${']'.repeat(JSON_DEPTH_LIMIT - 1)}}`;
    const refusedForOtherReasons = await service.request('/api/public/get_groups', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: shallowEnough,
    });
    assert.doesNotMatch(refusedForOtherReasons.text, /nested more than/);
    assert.doesNotMatch(service.logs(), /RangeError|Maximum call stack/);
  });

  it('answers deeply nested JSON with 400, not a crash', async () => {
    for (const depth of [1_000, 10_000]) {
      const nested = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      const answer = await service.request('/api/public/create_user', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: `{"api_key":"${service.admin.api_key}","api_key_secret":"${service.admin.api_key_secret}","target_user":{"username":"deep@example.com","first_name":${nested}}}`,
      });
      assertError(answer, 400, 'invalid_request');
    }
    assert.equal((await service.request('/healthz')).status, 200);
  });

  it('routes one spelling of each path: no other case, no trailing slash', async () => {
    for (const path of ['/API/PUBLIC/GET_GROUPS', '/api/public/Get_Groups', '/api/public/get_groups/', '/api/public/get_groups//']) {
      assertError(
        await service.request(path, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(service.admin),
        }),
        404,
        'not_found',
      );
    }
    for (const path of ['/HEALTHZ', '/healthz/', '/OPENAPI.JSON', '/docs/']) assertError(await service.request(path), 404, 'not_found');
    assert.equal((await service.callAsAdmin('get_groups')).status, 200);
  });
});

describe('usernames under the username profile', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service.close());

  const refused: [string, string, RegExp][] = [
    ['full-width root, once root exists', 'ｒｏｏｔ', /taken/],
    ['a Cyrillic а among Latin letters', 'аdmin', /mixes letters of Cyrillic and Latin/],
    ['Greek among Latin', 'αdmin', /mixes letters of Greek and Latin/],
    ['a zero-width space', 'admin\u200b', /invisible formatting characters.*U\+200B/],
    ['a variation selector (shows as admin)', 'admin\ufe0f', /invisible.*U\+FE0F/],
    ['a combining grapheme joiner', 'ad\u034fmin', /invisible.*U\+034F/],
    ['a variation selector supplement', 'admin\u{e0100}', /invisible.*U\+E0100/],
    ['a Khmer inherent vowel', 'admin\u17b4', /invisible.*U\+17B4/],
    ['a Hangul filler', 'admin\u115f', /invisible.*U\+115F/],
    ['a half-width Hangul filler', 'admin\uffa0', /invisible characters \(U\+1160\)/],
    ['a run of combining marks', 'ad\u0301\u0302\u0303\u0304\u0305min', /more than 4 combining marks/],
    ['a bidi override', 'user\u202eexe.txt', /invisible formatting characters.*U\+202E/],
    ['an escape sequence', '\x1b[31mred', /control characters \(U\+001B\)/],
    ['a space inside', 'ad min', /spaces/],
    ['a symbol', 'snow☃man', /U\+2603/],
    ['a compatibility ligature', 'ﬁnance', /compatibility character U\+FB01/],
    ['right-to-left letters after Latin ones', 'abcשלום', /RFC 5893/],
    ['a script not used for identifiers', 'Ꭺdmin', /script is not one used for identifiers/],
    ['255 characters that lower-case to 510', 'İ'.repeat(255), /510 characters long once normalised/],
  ];

  it('stores the prepared form: trimmed, width-mapped, lower-cased, NFC', async () => {
    const created = await service.callAsAdmin('create_user', { target_user: { username: '  ＡＤＭＩＮ ' } });
    assert.equal(created.status, 200, created.text);
    assert.equal(created.body.user.username, 'admin');
    const decomposed = await service.callAsAdmin('create_user', { target_user: { username: 'Jose\u0301' } });
    assert.equal(decomposed.body.user.username, 'jos\u00e9');
    for (const lookup of ['ADMIN', 'ａｄｍｉｎ', ' admin ']) {
      const found = await service.callAsAdmin('get_user', { target_user: { username: lookup } });
      assert.equal(found.body.user?.user_id, created.body.user.user_id, lookup);
    }
    for (const name of ['админ', 'αθηνα', '山田たろう', 'שלום', "bob_o'neil+tag@example.com"]) {
      assert.equal((await service.callAsAdmin('create_user', { target_user: { username: name } })).status, 200, name);
    }
  });

  for (const [what, username, message] of refused) {
    it(`refuses ${what}, saying why, on create and on update`, async () => {
      if (/taken/.test(message.source)) await service.createUser({ username: 'root' });
      const before = await snapshot(service);
      const created = await service.callAsAdmin('create_user', { target_user: { username } });
      if (/taken/.test(message.source)) {
        assertError(created, 409, 'username_taken');
      } else {
        assertError(created, 400, 'invalid_username');
        assert.match(created.body.error_message, message);
        assert.deepEqual(
          created.body.errors.map((error: { path: string }) => error.path),
          ['/body/target_user/username'],
        );
        assert.ok(!created.text.includes('\x1b') && !created.text.includes('\u202e'), 'the answer does not echo the character');
      }
      assert.equal(await snapshot(service), before);
    });
  }

  it('refuses them on update too, leaving the user as it was', async () => {
    const user = await service.createUser();
    for (const [, username, message] of refused.filter(([, , message]) => !/taken/.test(message.source))) {
      const answer = await service.callAsAdmin('update_user', { target_user: { user_id: user.user_id, username, first_name: 'Changed' } });
      assertError(answer, 400, 'invalid_username');
      assert.match(answer.body.error_message, message);
    }
    assert.deepEqual((await service.callAsAdmin('get_user', { target_user: { user_id: user.user_id } })).body.user, user);
  });

  it('finds a user whose prepared name is longer than what was sent, by that name', async () => {
    const created = await service.callAsAdmin('create_user', { target_user: { username: 'İ'.repeat(100) } });
    assert.equal(created.status, 200, created.text);
    assert.equal([...created.body.user.username].length, 200);
    const found = await service.callAsAdmin('get_user', { target_user: { username: created.body.user.username } });
    assert.equal(found.body.user.user_id, created.body.user.user_id);
  });
});
