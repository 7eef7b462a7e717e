/**
 * The hostile-input corpus: requests an attacker would send rather than ones
 * a schema describes. Odd encodings and charsets, bytes that are not UTF-8,
 * unpaired surrogates, U+0000, look-alike and invisible characters in usernames,
 * secrets in the query string and headers, other spellings of paths, request
 * smuggling headers, duplicate lengths, a declared length far over the limit,
 * deep nesting and very long header lines; and for SCIM, wrong bearer tokens,
 * filters that try to end the SQL or nest deep, PATCH paths into JavaScript's
 * objects, and ids that climb out of their path.
 *
 * Every answer must be a 4xx in its contract's error shape (the workspace
 * API's JSON with `error_message` and `code`; under /scim/v2, SCIM's Error
 * with its `scimType`), nothing stored may change, and, where the gate can
 * read the service's log, no secret sent may appear in it.
 */
import { deflateSync, gzipSync } from 'node:zlib';
import { rawRequest } from '../lib/testing/raw-http.js';
import { scimToken } from '../lib/contract/credentials.js';
import { Fixtures } from './fixtures.js';
import type { CheckResult } from './report.js';
import type { GateTarget } from './target.js';

interface HostileCase {
  name: string;
  /** The whole request as sent on the socket. */
  request: Buffer;
  /** Whose error shape the answer must have. */
  shape: 'workspace' | 'scim';
}

/** Secrets planted where they do not belong; none may reach the log. */
const PLANTED = [
  'Planted-Query-Secret-9f3',
  'Planted-Header-Secret-4c1',
  'Planted-Body-Secret-7a2',
  'Planted-Bearer-Secret-2d8',
  'Planted-Basic-Secret-6b0',
] as const;

function send(method: string, path: string, body: Buffer | string, headers: Record<string, string | number> = {}): Buffer {
  const payload = typeof body === 'string' ? Buffer.from(body) : body;
  const head = Object.entries({
    Host: 'gate',
    ...(payload.length > 0 || method !== 'GET' ? { 'Content-Type': 'application/json', 'Content-Length': payload.length } : {}),
    Connection: 'close',
    ...headers,
  })
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return Buffer.concat([Buffer.from(`${method} ${path} HTTP/1.1\r\n${head}\r\n`), payload]);
}

const post = (path: string, body: Buffer | string, headers: Record<string, string | number> = {}) => send('POST', path, body, headers);

const raw = (text: string) => Buffer.from(text, 'latin1');

/** A name in full-width forms: the same user, once width-mapped. */
const fullWidth = (text: string) => text.replace(/[\x21-\x7e]/g, (char) => String.fromCharCode(char.charCodeAt(0) + 0xfee0));

function workspaceCorpus(target: GateTarget, existingUsername: string): HostileCase[] {
  const { api_key, api_key_secret } = target.admin;
  const credentials = `"api_key":${JSON.stringify(api_key)},"api_key_secret":${JSON.stringify(api_key_secret)}`;
  const createUser = (username: string) => JSON.stringify({ api_key, api_key_secret, target_user: { username } });
  const [querySecret, headerSecret, bodySecret] = PLANTED;
  const cases: HostileCase[] = [];
  const add = (name: string, request: Buffer) => cases.push({ name, request, shape: 'workspace' });

  // Secrets in the wrong place.
  add(
    'a password in the query string',
    post(`/api/public/create_user?password=${querySecret}&api_key_secret=${querySecret}`, createUser('query-secret@example.com')),
  );
  add(
    'a secret in headers',
    post('/api/public/get_user', `{${credentials}}`, {
      Authorization: `Bearer ${headerSecret}`,
      Cookie: `s=${headerSecret}`,
      'X-Api-Key-Secret': headerSecret,
    }),
  );
  // An unknown key is ignored (Kasm's tolerance): beside a field the service sets, the request
  // is refused, and the secret in the unknown key must appear in neither the answer nor the log.
  add(
    'a secret in an unknown body field',
    post(
      '/api/public/create_user',
      JSON.stringify({ api_key, api_key_secret, secret: bodySecret, target_user: { username: 'x@example.com', realm: 'ldap' } }),
    ),
  );
  // A wrong secret for the admin's key: the throttle counts it for this client and that key id,
  // and valid credentials are never throttled, so it locks no one out.
  add('a wrong secret', post('/api/public/get_groups', JSON.stringify({ api_key, api_key_secret: bodySecret })));

  // Bodies that cannot be read faithfully.
  add('a gzip body', post('/api/public/create_user', gzipSync(createUser('gzip@example.com')), { 'Content-Encoding': 'gzip' }));
  add('a deflate body that does not inflate', post('/api/public/create_user', 'not deflated', { 'Content-Encoding': 'deflate' }));
  add('a br body', post('/api/public/create_user', deflateSync('x'), { 'Content-Encoding': 'br' }));
  add('a UTF-16 charset', post('/api/public/get_groups', `{${credentials}}`, { 'Content-Type': 'application/json; charset=utf-16' }));
  add(
    'bytes that are not UTF-8',
    post(
      '/api/public/create_user',
      Buffer.concat([Buffer.from(createUser('bad').slice(0, -6)), Buffer.from([0xc3, 0x28, 0xff]), Buffer.from('"}}')]),
    ),
  );
  add(
    'a surrogate encoded as UTF-8',
    post(
      '/api/public/create_user',
      Buffer.concat([Buffer.from(createUser('sur').slice(0, -6)), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}')]),
    ),
  );
  add('an unpaired surrogate escape', post('/api/public/create_user', createUser('lone').replace('lone', 'lone\\ud800')));
  add(
    'U+0000 in a first name, which PostgreSQL cannot store',
    post(
      '/api/public/create_user',
      JSON.stringify({ api_key, api_key_secret, target_user: { username: 'nul@example.com', first_name: 'Nul' } }).replace(
        '"Nul"',
        '"Nul\\u0000"',
      ),
    ),
  );
  add(
    'JSON nested 10,000 deep',
    post(
      '/api/public/create_user',
      `{${credentials},"target_user":{"username":"deep@example.com","first_name":${'['.repeat(10_000)}${']'.repeat(10_000)}}}`,
    ),
  );
  add(
    'JSON nested 5,000 deep around an unpaired surrogate, before any credentials',
    post('/api/public/get_groups', `{"api_key":"x","api_key_secret":"y","a":${'['.repeat(5_000)}"\\ud800"${']'.repeat(5_000)}}`),
  );
  add(
    'a chunked body of 64 KiB, twice the limit',
    raw(
      `POST /api/public/get_groups HTTP/1.1\r\nHost: gate\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `${'4000\r\n'.concat(' '.repeat(0x4000), '\r\n').repeat(4)}0\r\n\r\n`,
    ),
  );
  for (const time of ['2026-11-24T25:00:00Z', '2026-11-24T24:30:00Z', '2026-02-30T00:00:00Z', '2026-12-31T23:59:60Z']) {
    add(`get_audit_events since ${time}`, post('/api/public/get_audit_events', JSON.stringify({ api_key, api_key_secret, since: time })));
  }
  add(
    'a password that is the username in other case',
    post(
      '/api/public/create_user',
      JSON.stringify({
        api_key,
        api_key_secret,
        target_user: { username: 'same.as.pass1@example.com', password: 'Same.As.Pass1@example.com' },
      }),
    ),
  );
  add(
    'a password of four characters and four combining accents',
    post(
      '/api/public/create_user',
      JSON.stringify({
        api_key,
        api_key_secret,
        target_user: { username: 'accents@example.com', password: 'aA1!\u0301\u0301\u0301\u0301' },
      }),
    ),
  );
  // Server-side request forgery: a webhook at every form of an address inside the network is refused (a 4xx).
  for (const url of [
    'http://169.254.169.254/latest/meta-data/iam/',
    'http://2130706433/',
    'http://0177.0.0.1:22/',
    'http://[::ffff:127.0.0.1]/',
    'http://[fd00:ec2::254]/',
    'http://0.0.0.0:8080/',
    'http://localhost/admin',
    'https://user:pass@93.184.216.34/',
    'gopher://93.184.216.34:25/',
  ]) {
    add(`a webhook at ${url}`, post('/api/public/create_webhook', JSON.stringify({ api_key, api_key_secret, target_webhook: { url } })));
  }
  add(
    'a Content-Length of 10 GB',
    raw(`POST /api/public/get_groups HTTP/1.1\r\nHost: gate\r\nContent-Type: application/json\r\nContent-Length: 10000000000\r\n\r\n`),
  );

  // Usernames that would impersonate or inject.
  for (const [name, username] of [
    ['the full-width form of an existing name', fullWidth(existingUsername)],
    ['a Cyrillic а among Latin letters', 'аdmin'],
    ['a zero-width space', 'admin\u200b'],
    ['a variation selector', 'admin\ufe0f'],
    ['a combining grapheme joiner', 'ad\u034fmin'],
    ['a variation selector supplement', 'admin\u{e0100}'],
    ['a Khmer inherent vowel', 'admin\u17b4'],
    ['a Hangul filler', 'admin\u115f'],
    ['a half-width Hangul filler', 'admin\uffa0'],
    ['a stack of combining marks', 'ad\u0301\u0302\u0303\u0304\u0305min'],
    ['a bidi override', 'user\u202eexe.txt'],
    ['an escape sequence', '\u001b[31mred'],
    ['a name that lower-cases past the limit', 'İ'.repeat(255)],
  ]) {
    add(`username: ${name}`, post('/api/public/create_user', createUser(username!)));
  }

  // Group names that would impersonate "All Users" (the group-name profile, server/username/group-name.ts).
  for (const [name, groupName] of [
    ['a no-break space', 'All\u00a0Users'],
    ['a zero-width space', 'All\u200bUsers'],
    ['a right-to-left override', '\u202esresU llA'],
    ['another case', 'ALL USERS'],
  ]) {
    add(
      `group name: ${name}`,
      post('/api/public/create_group', JSON.stringify({ api_key, api_key_secret, target_group: { name: groupName } })),
    );
  }

  // Other spellings of a path.
  for (const path of ['/API/PUBLIC/GET_GROUPS', '/api/public/get_groups/', '/api/public//get_groups', '/api/public/get_groups%2F']) {
    add(`the path ${path}`, post(path, `{${credentials}}`));
  }

  // Framing that proxies and servers may read differently.
  const body = createUser('smuggled@example.com');
  add(
    'two Content-Length headers',
    raw(
      `POST /api/public/create_user HTTP/1.1\r\nHost: gate\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nContent-Length: 4\r\n\r\n${body}`,
    ),
  );
  add(
    'Content-Length with chunked',
    raw(
      `POST /api/public/create_user HTTP/1.1\r\nHost: gate\r\nContent-Type: application/json\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
    ),
  );
  add(
    'an obfuscated Transfer-Encoding',
    raw(
      `POST /api/public/create_user HTTP/1.1\r\nHost: gate\r\nContent-Type: application/json\r\nTransfer-Encoding: xchunked\r\n\r\n${body}`,
    ),
  );
  add(
    'a space before a header colon',
    raw(`POST /api/public/create_user HTTP/1.1\r\nHost: gate\r\nContent-Length : ${body.length}\r\n\r\n${body}`),
  );
  add('no Host header', raw('GET /healthz HTTP/1.1\r\n\r\n'));
  add('a 70 KB header line', raw(`GET /healthz HTTP/1.1\r\nHost: gate\r\nX-Long: ${'a'.repeat(70_000)}\r\n\r\n`));
  return cases;
}

const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

function scimCorpus(target: GateTarget, existing: { username: string; user_id: string }): HostileCase[] {
  const { api_key } = target.admin;
  const [querySecret, , , bearerSecret, basicSecret] = PLANTED;
  const bearer = { Authorization: `Bearer ${scimToken(target.admin)}` };
  const scimJson = { ...bearer, 'Content-Type': 'application/scim+json' };
  const filter = (text: string) => `/scim/v2/Users?filter=${encodeURIComponent(text)}`;
  const patch = (operations: string) =>
    send('PATCH', `/scim/v2/Users/${existing.user_id}`, `{"schemas":["${PATCH_OP}"],"Operations":${operations}}`, scimJson);
  const createUser = (userName: string) => post('/scim/v2/Users', JSON.stringify({ schemas: [SCIM_USER], userName }), scimJson);
  const cases: HostileCase[] = [];
  const add = (name: string, request: Buffer) => cases.push({ name: `SCIM: ${name}`, request, shape: 'scim' });

  // Credentials that are wrong, or where they do not belong.
  add('a bearer token with a wrong secret', send('GET', '/scim/v2/Users', '', { Authorization: `Bearer ${api_key}.${bearerSecret}` }));
  add(
    'Basic credentials with a wrong secret',
    send('GET', '/scim/v2/Groups', '', { Authorization: `Basic ${Buffer.from(`${api_key}:${basicSecret}`).toString('base64')}` }),
  );
  add('a bearer token without its secret', send('GET', '/scim/v2/Users', '', { Authorization: `Bearer ${api_key}` }));
  add('a secret in the query string', send('GET', `/scim/v2/Users?api_key_secret=${querySecret}`, '', bearer));

  // Filters that try to end the SQL, or nest until a parser gives up.
  add('a filter that tries to end the SQL string', send('GET', filter(`userName eq "x" or 1=1 --`), '', bearer));
  add('a filter with a quote left open', send('GET', filter(`userName eq "x\\"); DROP TABLE users; --`), '', bearer));
  add('a filter opening 1,000 parentheses', send('GET', filter(`${'('.repeat(1_000)}userName eq "x"`), '', bearer));
  add('a filter naming an object internal', send('GET', filter('__proto__ pr'), '', bearer));
  add('a filter within a value filter', send('GET', filter('emails[type eq "work"][value eq "x"]'), '', bearer));
  add('a filter comparing with U+0000', send('GET', filter('userName eq "x\u0000"'), '', bearer));

  // PATCHes that would reach JavaScript's objects, or names that would impersonate.
  add('a PATCH path into Object.prototype', patch(`[{"op":"add","path":"__proto__.polluted","value":"yes"}]`));
  add('a PATCH path through constructor.prototype', patch(`[{"op":"replace","path":"constructor.prototype.polluted","value":"yes"}]`));
  add('a PATCH value with a __proto__ key', patch(`[{"op":"add","path":"name","value":{"__proto__":{"polluted":"yes"}}}]`));
  add(
    'a PATCH at a version past 2^64',
    send(
      'PATCH',
      `/scim/v2/Users/${existing.user_id}`,
      JSON.stringify({ schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] }),
      { ...scimJson, 'If-Match': 'W/"18446744073709551617"' },
    ),
  );
  // Work without bounds (docs/scim.md, Bounds): refused at the limits, whatever a provider sends.
  add(
    'a PATCH of 101 operations',
    patch(JSON.stringify(Array.from({ length: 101 }, () => ({ op: 'replace', path: 'name.givenName', value: 'x' })))),
  );
  add(
    'a PATCH growing emails past the limit',
    patch(JSON.stringify([{ op: 'add', path: 'emails', value: Array.from({ length: 21 }, (_, i) => ({ value: `e${i}@example.com` })) }])),
  );
  add('a PATCH putting a string in place of name', patch(`[{"op":"replace","path":"name","value":"str"}]`));
  add('a PATCH adding to the read-only groups', patch(`[{"op":"add","path":"groups","value":[{"value":"x"}]}]`));
  add('a startIndex past the largest exact number', send('GET', '/scim/v2/Users?startIndex=99999999999999999999999', '', bearer));
  add('the full-width form of an existing userName', createUser(fullWidth(existing.username)));
  add('a userName with a bidi override', createUser('user\u202eexe.txt'));
  add('a userName with a zero-width space', createUser('admin\u200b'));
  add(
    'a group named All Users with a no-break space',
    post(
      '/scim/v2/Groups',
      JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: 'All\u00a0Users' }),
      scimJson,
    ),
  );
  add(
    'JSON nested 10,000 deep',
    post(
      '/scim/v2/Users',
      `{"schemas":["${SCIM_USER}"],"userName":"deep@example.com","name":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
      scimJson,
    ),
  );
  add(
    'application/scim+json in UTF-16',
    post('/scim/v2/Users', JSON.stringify({ schemas: [SCIM_USER], userName: 'utf16@example.com' }), {
      ...bearer,
      'Content-Type': 'application/scim+json; charset=utf-16',
    }),
  );
  add(
    'a chunked body of 64 KiB, twice the limit',
    raw(
      `POST /scim/v2/Users HTTP/1.1\r\nHost: gate\r\nAuthorization: ${bearer.Authorization}\r\nContent-Type: application/scim+json\r\nTransfer-Encoding: chunked\r\n\r\n` +
        `${'4000\r\n'.concat(' '.repeat(0x4000), '\r\n').repeat(4)}0\r\n\r\n`,
    ),
  );

  // Ids and paths that climb out or are spelt otherwise.
  for (const path of [
    '/scim/v2/Users/..%2F..%2Fapi%2Fpublic%2Fget_users',
    `/scim/v2/Users/${existing.user_id}%00`,
    '/scim/v2/Users/',
    '/scim/v2//Users',
    '/scim/v2/users',
    '/scim/v2/Users/x/y',
  ]) {
    add(`the path ${path}`, send('GET', path, '', bearer));
  }
  return cases;
}

const isWorkspaceError = (body: { error_message?: unknown; code?: unknown }) =>
  typeof body.error_message === 'string' && typeof body.code === 'string';

const isScimError = (body: { schemas?: unknown; status?: unknown; scimType?: unknown; detail?: unknown }) =>
  Array.isArray(body.schemas) &&
  body.schemas.includes('urn:ietf:params:scim:api:messages:2.0:Error') &&
  typeof body.status === 'string' &&
  typeof body.scimType === 'string' &&
  typeof body.detail === 'string';

/** What is wrong with one answer, if anything. */
function problemsWith(answer: Awaited<ReturnType<typeof rawRequest>>, shape: HostileCase['shape']): string[] {
  if (answer.status === 0) return ['no answer'];
  const problems: string[] = [];
  if (answer.status < 400 || answer.status >= 500) problems.push(`answered ${answer.status}, not a 4xx`);
  const mediaType = shape === 'scim' ? /^application\/scim\+json/ : /^application\/json/;
  if (!mediaType.test(answer.headers['content-type'] ?? ''))
    problems.push(`answered ${answer.headers['content-type'] ?? 'no content type'}, not ${shape === 'scim' ? 'SCIM' : ''} JSON`);
  try {
    const body = JSON.parse(answer.body) as Record<string, unknown>;
    if (!(shape === 'scim' ? isScimError(body) : isWorkspaceError(body))) problems.push(`the body is not the ${shape} error shape`);
  } catch {
    problems.push(`the body is not JSON: ${answer.body.slice(0, 120)}`);
  }
  return problems;
}

export async function runHostileCorpus(target: GateTarget): Promise<CheckResult> {
  const failures: string[] = [];
  const fixtures = new Fixtures(target);
  let cases: HostileCase[];
  try {
    const existing = await fixtures.user();
    cases = [...workspaceCorpus(target, existing.username), ...scimCorpus(target, existing)];
    let stored = await target.snapshot();
    for (const { name, request, shape } of cases) {
      const answer = await rawRequest(target.baseUrl, request, { waitMs: 10_000 });
      const problems = problemsWith(answer, shape);
      const now = await target.snapshot();
      if (now !== stored) problems.push('changed what is stored');
      stored = now;
      if (problems.length > 0) failures.push(`${name}: ${problems.join('; ')} [${answer.status} ${answer.body.slice(0, 160)}]`);
    }
  } finally {
    await fixtures.cleanup();
  }
  const log = target.logs();
  const notChecked: string[] = [];
  if (log === '') notChecked.push('the service log (the gate reads it only from a service of its own)');
  const secrets = [...PLANTED, target.admin.api_key_secret];
  for (const secret of secrets) {
    if (log.includes(secret))
      failures.push(`the log holds a secret the corpus sent (${secret === target.admin.api_key_secret ? 'the key secret' : secret})`);
  }
  return {
    name: 'hostile',
    summary: `${cases.length} hostile requests, ${failures.length} failures`,
    failures,
    notChecked,
    details: [],
  };
}
