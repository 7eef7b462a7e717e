/**
 * Checks the caller's credentials before anything else is looked up, so an
 * invalid key learns nothing about users; then the operation's permission, as
 * its `x-permission` in the contract names it.
 *
 * Each protocol takes the ways its clients send credentials, and no other
 * (docs/api.md, docs/scim.md): the workspace API takes them in the JSON body
 * (`api_key`, `api_key_secret`: Kasm's older API and its clients), by HTTP
 * Basic (`Authorization: Basic base64(api_key:api_key_secret)`: Kasm's current
 * Developer API) and in the `api-key` and `api-key-secret` headers (some Kasm
 * clients); SCIM takes a bearer token (`Authorization: Bearer
 * <api_key>.<api_key_secret>`: identity providers send only a token) and HTTP
 * Basic. A secret sent another way (a token to the workspace API; a body or
 * the api-key headers to SCIM, where providers and proxies log bodies) is
 * never read: without a way the protocol takes, the answer is 401. All go
 * through the same check and the same throttle (keys/throttle.ts), and every
 * failure gets the same 401, or 429 once a client has failed too often.
 * Several at once must agree: which one would "win" is not a question the
 * service should answer silently.
 *
 * An operation of the workspace API whose `security` lists `consoleSession`
 * also takes the web console's session cookie, read only when a request carries
 * no other credentials (a cookie travels with every request a browser sends;
 * credentials a program sends are what it means). Under a session, every
 * operation that declares the CSRF token header requires it.
 */
import type { Request, RequestHandler, Response } from 'express';
import { API_KEY_PATTERN, CSRF_TOKEN_HEADER, type CredentialWay, type RequiredPermission } from '../../lib/contract/operations.js';
import type { ConsoleSessions, LiveSession } from '../keys/console-sessions.js';
import { isValidKey } from '../keys/api-keys.js';
import type { LastUse } from '../keys/last-use.js';
import type { AuthThrottle } from '../keys/throttle.js';
import { type Challenge, ServiceError, invalidCredentials, invalidCsrfToken, permissionDenied, sessionEnded } from '../service-errors.js';
import type { Store } from '../store/repositories.js';
import type { Credentials } from '../../lib/contract/credentials.js';
import type { ApiKeyRecord } from '../store/records.js';
import { requestLogger } from './request-logging.js';
import { clearedSessionCookie, sessionTokenOf } from './session-cookie.js';

/**
 * What one way of sending credentials holds: nothing, credentials, or
 * something that is not credentials (a malformed Authorization header, one of
 * the two api-key headers without the other), which fails like a wrong secret.
 */
type Sent = { kind: 'none' } | { kind: 'credentials'; credentials: Credentials } | { kind: 'malformed' };

const NONE: Sent = { kind: 'none' };
const MALFORMED: Sent = { kind: 'malformed' };
const sent = (api_key: string, api_key_secret: string): Sent => ({ kind: 'credentials', credentials: { api_key, api_key_secret } });

const BASIC = /^Basic[ \t]+([A-Za-z0-9+/]+={0,2})[ \t]*$/i;
/** RFC 6750's token characters; the key id (which has no dot) and its secret joined by the first dot. */
const BEARER = /^Bearer[ \t]+([A-Za-z0-9_-]+)\.([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i;

/** The Authorization header, by Basic, and by a bearer token where the protocol takes one; anything else is malformed. */
const fromAuthorization =
  (takesBearer: boolean) =>
  (req: Request): Sent => {
    const header = req.headers.authorization;
    if (header === undefined) return NONE;
    const [, bearerKey, bearerSecret] = BEARER.exec(header) ?? [];
    if (bearerKey !== undefined && bearerSecret !== undefined) return takesBearer ? sent(bearerKey, bearerSecret) : MALFORMED;
    const token = BASIC.exec(header)?.[1];
    if (!token) return MALFORMED;
    const decoded = Buffer.from(token, 'base64');
    const text = new TextDecoder('utf-8', { fatal: false }).decode(decoded);
    const colon = text.indexOf(':');
    if (colon <= 0 || colon === text.length - 1 || Buffer.from(text).compare(decoded) !== 0) return MALFORMED;
    return sent(text.slice(0, colon), text.slice(colon + 1));
  };

/** The `api-key` and `api-key-secret` headers some Kasm clients send: both, or it is malformed. */
function fromApiKeyHeaders(req: Request): Sent {
  const apiKey = req.headers['api-key'];
  const secret = req.headers['api-key-secret'];
  if (apiKey === undefined && secret === undefined) return NONE;
  // A repeated header arrives joined (`a, b`) or as an array: neither is one credential.
  if (typeof apiKey !== 'string' || typeof secret !== 'string' || apiKey === '' || secret === '') return MALFORMED;
  return sent(apiKey, secret);
}

function fromBody(req: Request): Sent {
  // The validator has made sure both are present together, as non-empty strings.
  const { api_key, api_key_secret } = (req.body ?? {}) as Partial<Credentials>;
  return api_key !== undefined && api_key_secret !== undefined ? sent(api_key, api_key_secret) : NONE;
}

type Way = readonly [name: string, read: (req: Request) => Sent];

/** The workspace API's ways, each by the words an error message uses for it, in the order they are named. */
const WORKSPACE_WAYS: readonly (readonly [CredentialWay, Way])[] = [
  ['basic', ['the Authorization header', fromAuthorization(false)]],
  ['api-key headers', ['the api-key headers', fromApiKeyHeaders]],
  ['body', ['the body', fromBody]],
];
/** SCIM's one way: a bearer token or HTTP Basic, in the Authorization header. */
const SCIM_WAYS: readonly Way[] = [['the Authorization header', fromAuthorization(true)]];

const disagreement = (ways: string[]) =>
  new ServiceError(400, 'invalid_request', `Invalid request: the credentials in ${ways.join(' and in ')} differ; send them once`, [
    { path: ways.includes('the body') ? '/body/api_key' : '/header/api-key', message: `differs from the credentials in ${ways[0]}` },
  ]);

/**
 * The credentials of a request, from whichever ways it sent them: none, or
 * malformed when one way is. Several ways must agree.
 */
function credentialsOf(req: Request, ways: readonly Way[]): Sent {
  const found = ways.map(([way, read]) => [way, read(req)] as const).filter(([, value]) => value.kind !== 'none');
  if (found.some(([, value]) => value.kind === 'malformed')) return MALFORMED;
  const given = found.map(([way, value]) => [way, (value as Extract<Sent, { kind: 'credentials' }>).credentials] as const);
  const [first] = given;
  if (!first) return NONE;
  const differ = given.some(([, other]) => other.api_key !== first[1].api_key || other.api_key_secret !== first[1].api_key_secret);
  if (differ) throw disagreement(given.map(([way]) => way));
  return { kind: 'credentials', credentials: first[1] };
}

/** What checks credentials, shared by every protocol: the keys, one throttle of failures, the record of each key's last use, and the console's sessions. */
export interface CredentialCheck {
  store: Store;
  throttle: AuthThrottle;
  lastUse: LastUse;
  sessions: ConsoleSessions;
}

/** What an operation asks of its caller: its permission, the ways it takes credentials, and whether a session must send its CSRF token. */
export interface Guarded {
  permission: RequiredPermission;
  /** The workspace API's ways this operation lists (SCIM has its own, and no other). */
  credentialWays?: readonly CredentialWay[];
  takesCsrfToken?: boolean;
}

/** A request under a console session: the session must be live, and carry its CSRF token where the operation asks for it. */
async function resumeSession(req: Request, res: Response, sessions: ConsoleSessions, token: string, takesCsrfToken: boolean) {
  const session = await sessions.resume(token);
  if (!session) {
    res.append('Set-Cookie', clearedSessionCookie(req));
    throw sessionEnded();
  }
  if (takesCsrfToken && !sessions.csrfMatches(session, req.get(CSRF_TOKEN_HEADER))) throw invalidCsrfToken(CSRF_TOKEN_HEADER);
  return session;
}

/**
 * The challenge of a 401: HTTP Basic, which the API takes; but not to a script of a page on
 * the service's own origin (the console), whose browser would answer a Basic challenge by
 * stopping the page to ask the person for a password (Fetch Metadata tells which requests those are).
 */
const challengeFor = (req: Request): Challenge =>
  req.get('Sec-Fetch-Site') === 'same-origin' && req.get('Sec-Fetch-Mode') !== 'navigate' ? 'Session' : 'Basic';

/** Lets the request on as `key` if the key holds `permission`, naming it in the request's log line and in any logged through requestLogger from here on. */
async function admit(res: Response, key: ApiKeyRecord, permission: Exclude<RequiredPermission, 'none'>, lastUse: LastUse): Promise<void> {
  await lastUse.note(key);
  if (permission !== 'authenticated' && !key.permissions.includes(permission)) throw permissionDenied(permission);
  res.locals.apiKey = key;
}

export function authenticate(
  { permission, credentialWays = [], takesCsrfToken = false }: Guarded,
  { store, throttle, lastUse, sessions }: CredentialCheck,
  protocol: 'workspace' | 'scim',
): RequestHandler {
  const ways =
    protocol === 'scim' ? SCIM_WAYS : WORKSPACE_WAYS.filter(([way]) => credentialWays.includes(way)).map(([, described]) => described);
  const takesSession = protocol === 'workspace' && credentialWays.includes('session');
  return async (req, res, next) => {
    if (permission === 'none') return void next();
    const sent = credentialsOf(req, ways);
    const sessionToken = takesSession && sent.kind === 'none' ? sessionTokenOf(req) : undefined;
    if (sessionToken !== undefined) {
      const session: LiveSession = await resumeSession(req, res, sessions, sessionToken, takesCsrfToken);
      await admit(res, session.key, permission, lastUse);
      res.locals.consoleSession = session;
      return void next();
    }
    const credentials = sent.kind === 'credentials' ? sent.credentials : undefined;
    // A key id the contract would refuse is looked up nowhere (PostgreSQL cannot even hold a NUL).
    const key = credentials && API_KEY_PATTERN.test(credentials.api_key) ? await store.apiKeys.find(credentials.api_key) : undefined;
    if (!credentials || !isValidKey(key, credentials.api_key_secret)) {
      // Valid credentials never reach here, so the throttle can only change how a failure is answered.
      const address = req.ip ?? req.socket.remoteAddress ?? 'unknown';
      const { answer, throttledNow } = throttle.fail(address, credentials?.api_key ?? '', invalidCredentials(challengeFor(req)));
      if (throttledNow) {
        requestLogger(req, res).warn(
          // The key id only when a key has it: what was sent in its place could be anything, a secret included.
          { client: address, api_key: key?.api_key ?? null },
          'failed credential checks past the limit: answering 429 to this client and key id for the rest of the window',
        );
      }
      throw answer;
    }
    await admit(res, key, permission, lastUse);
    next();
  };
}
