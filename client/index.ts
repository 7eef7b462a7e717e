/**
 * The typed SDK: `import { updateUser } from 'workspace-user-api/client'`.
 *
 * One function per operation of the contract, named by its operationId, on
 * openapi-fetch and the generated types: no request or response type here is
 * written by hand. Credentials and the base URL are set once (configure(),
 * createWorkspaceClient(), or WORKSPACE_URL / WORKSPACE_API_KEY /
 * WORKSPACE_API_KEY_SECRET) and merged into each request body.
 *
 * Every call resolves to openapi-fetch's `{ data, error, response }`: `error`
 * is the contract's error body, or a ClientFailure of the same shape when no
 * answer came (unreachable, timed out, not configured). Nothing throws.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, operations, paths } from '../generated/workspace/types.js';
import type { Credentials } from '../lib/contract/credentials.js';
import { WorkspaceCallError } from './call-error.js';
import { eachEventFrom, type EachEventOptions, type ChangeEvent } from './each-event.js';
import { pause } from './pause.js';
import { randomKey } from './random-key.js';
import { CREATES, nextWait, type RetryOptions, retryPolicy } from './retry.js';
export { WorkspaceCallError } from './call-error.js';
export { verifyWebhook, WebhookVerificationError } from './verify-webhook.js';
export { EACH_EVENT_WAIT_SECONDS, type ChangeEvent, type EachEventOptions } from './each-event.js';
export type { Credentials } from '../lib/contract/credentials.js';
export { DEFAULT_RETRY, type RetryOptions } from './retry.js';

export type { components, operations, paths };
export type User = components['schemas']['User'];
export type Group = components['schemas']['Group'];
export type UserAttributes = components['schemas']['UserAttributes'];
export type Permission = components['schemas']['Permission'];
/** The error body every failed request gets from the service. */
export type ApiError = components['schemas']['Error'];

/** What one attempt of an operation sends: its body (credentials included, or not), headers and the signal that ends it. */
// (A type, not an interface: openapi-fetch takes an init with an index signature, which only a type literal meets.)
type Sent<Op extends OperationName> = {
  body: RequestBody<Op>;
  headers: Record<string, string>;
  signal: AbortSignal;
};

/** What openapi-fetch gives back for one attempt, typed for the operation's own path. */
interface Answered<Op extends OperationName> {
  data?: Success<Op>;
  error?: ApiError;
  response: Response;
}

/** One sender per operation, each a POST to its own path on openapi-fetch's types for that path. */
type Senders = { [Op in OperationName]: (sent: Sent<Op>) => Promise<Answered<Op>> };

/** A call that got no answer from the service; shaped like ApiError so callers can read `error_message` either way. */
export interface ClientFailure {
  error_message: string;
  code: 'network_error' | 'timeout' | 'not_configured' | 'origin_refused';
}

/**
 * How a client is set up. Each option may be left out or given as undefined
 * (`baseUrl: process.env.WORKSPACE_URL` compiles under exactOptionalPropertyTypes):
 * either way its default applies.
 */
export interface WorkspaceClientOptions {
  /** The API key's id; default WORKSPACE_API_KEY. */
  api_key?: string | undefined;
  /** The API key's secret; default WORKSPACE_API_KEY_SECRET. */
  api_key_secret?: string | undefined;
  /** The service's address; default WORKSPACE_URL, then http://127.0.0.1:8080. */
  baseUrl?: string | undefined;
  /** A fetch to use instead of the global one (tests, proxies, instrumentation). */
  fetch?: ((request: Request) => Promise<Response>) | undefined;
  /** Give up on a request after this long; default 30 000 ms. */
  timeoutMs?: number | undefined;
  /**
   * Where the credentials travel: `body` (default), as `api_key` and `api_key_secret`
   * in the JSON body like Kasm's older API and its clients; `basic`, as HTTP Basic
   * (`Authorization: Basic …`) like Kasm's current Developer API; or `headers`, as
   * `api-key` and `api-key-secret` request headers. The service takes each. `session`: none
   * at all, in a page on the service's own origin signed in with `signIn` (the browser sends
   * the session's cookie by itself; docs/console.md), with the session's CSRF token from
   * `csrfToken`; no secret is then kept anywhere in the page.
   */
  credentialsIn?: 'body' | 'basic' | 'headers' | 'session' | undefined;
  /** With `credentialsIn: 'session'`, the session's CSRF token (signIn's and getSession's `csrf_token`), read for each call. */
  csrfToken?: (() => string | undefined) | undefined;
  /**
   * Trying a call again after 429, 502, 503, 504 or a dropped connection (retry.ts says
   * which operations, and when): on by default with 2 retries, a backoff from 250 ms up to
   * 10 s honouring Retry-After, and 60 s for the whole call; `false` turns it off.
   */
  retry?: RetryOptions | false | undefined;
}

export interface CallOptions {
  /** Abort this call early. */
  signal?: AbortSignal | undefined;
}

type HeaderParameters<Op extends keyof operations> = NonNullable<operations[Op]['parameters']['header']>;

/**
 * The options of one operation: those of every call; `ifMatch` where the operation takes
 * `If-Match` (updateUser, deleteUser): the change is made only if the user is still at that
 * version (an `etag` a call answered), else it fails with 412 `version_mismatch`; and
 * `idempotencyKey` where it takes an `Idempotency-Key` (every change): the key to send with
 * every attempt, so that the service makes the change once however often it arrives
 * (docs/api.md, "Retries"). A create gets a new random key for each call unless one is given;
 * give your own to make a call retried across processes (a job run again) the same change.
 */
export type CallOptionsOf<Op extends keyof operations> = CallOptions &
  ([HeaderParameters<Op>] extends [never]
    ? unknown
    : ('If-Match' extends keyof HeaderParameters<Op> ? { ifMatch?: string | undefined } : unknown) &
        ('Idempotency-Key' extends keyof HeaderParameters<Op> ? { idempotencyKey?: string | undefined } : unknown));

/** What a call may be given, whatever its operation. */
type AnyCallOptions = CallOptions & { ifMatch?: string | undefined; idempotencyKey?: string | undefined };

/** The operations that take credentials (in their body, or by HTTP Basic): the public API. */
export type OperationName = {
  [Op in keyof operations]: operations[Op] extends { requestBody: { content: { 'application/json': { api_key?: string } } } } ? Op : never;
}[keyof operations];

/** `updateUser` → `update_user`, as the contract names paths after operationIds. */
export type SnakeCase<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `_${Lowercase<Head>}`}${SnakeCase<Tail>}`
  : S;
type PathOf<Op extends OperationName> = `/api/public/${SnakeCase<Op>}` & keyof paths;

type RequestBody<Op extends OperationName> = operations[Op]['requestBody'] extends { content: { 'application/json': infer Body } }
  ? Body
  : never;
/** What a call takes: the operation's body, with credentials optional because the client supplies them. */
export type Params<Op extends OperationName> = Omit<RequestBody<Op>, keyof Credentials> & Partial<Credentials>;
export type Success<Op extends OperationName> = operations[Op]['responses'][200] extends { content: { 'application/json': infer Body } }
  ? Body
  : never;

/** What every result carries besides its data or error. */
export interface CallRecord {
  /** How many times the call was sent: 1, or more when it was retried. */
  attempts: number;
  /** The X-Request-Id of the last answer (the service's log names each request by it); undefined when none came. */
  requestId: string | undefined;
  /**
   * The answer's ETag where it shows one user (getUser, createUser, updateUser): the user's
   * version, to pass as `ifMatch` so that a later change is made only if nobody changed the user since.
   */
  etag: string | undefined;
}

export type Result<Op extends OperationName> = CallRecord &
  ({ data: Success<Op>; error?: never; response: Response } | { data?: never; error: ApiError | ClientFailure; response?: Response });

/** Operations whose body holds nothing but credentials may be called with no argument. */
type Call<Op extends OperationName> =
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- `{}` extends Params exactly when Params has no required key.
  {} extends Params<Op>
    ? (params?: Params<Op>, options?: CallOptionsOf<Op>) => Promise<Result<Op>>
    : (params: Params<Op>, options?: CallOptionsOf<Op>) => Promise<Result<Op>>;

export type WorkspaceClient = { [Op in OperationName]: Call<Op> };

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';
export const DEFAULT_TIMEOUT_MS = 30_000;

export function pathOf<Op extends OperationName>(operation: Op): PathOf<Op> {
  return `/api/public/${operation.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)}` as PathOf<Op>;
}

/**
 * The senders over one openapi-fetch client. Each names its path by pathOf, whose type is
 * the path's literal, so that openapi-fetch checks the body and the answer against that
 * path's own types; the compiler refuses a missing operation.
 */
function sendersOn(http: Client<paths>): Senders {
  return {
    validateCredentials: (sent) => http.POST(pathOf('validateCredentials'), sent),
    signIn: (sent) => http.POST(pathOf('signIn'), sent),
    getSession: (sent) => http.POST(pathOf('getSession'), sent),
    signOut: (sent) => http.POST(pathOf('signOut'), sent),
    getUsers: (sent) => http.POST(pathOf('getUsers'), sent),
    getUser: (sent) => http.POST(pathOf('getUser'), sent),
    createUser: (sent) => http.POST(pathOf('createUser'), sent),
    updateUser: (sent) => http.POST(pathOf('updateUser'), sent),
    deleteUser: (sent) => http.POST(pathOf('deleteUser'), sent),
    getGroups: (sent) => http.POST(pathOf('getGroups'), sent),
    addUserGroup: (sent) => http.POST(pathOf('addUserGroup'), sent),
    removeUserGroup: (sent) => http.POST(pathOf('removeUserGroup'), sent),
    createApiKey: (sent) => http.POST(pathOf('createApiKey'), sent),
    getApiKeys: (sent) => http.POST(pathOf('getApiKeys'), sent),
    revokeApiKey: (sent) => http.POST(pathOf('revokeApiKey'), sent),
    getAuditEvents: (sent) => http.POST(pathOf('getAuditEvents'), sent),
    getEvents: (sent) => http.POST(pathOf('getEvents'), sent),
    createWebhook: (sent) => http.POST(pathOf('createWebhook'), sent),
    getWebhooks: (sent) => http.POST(pathOf('getWebhooks'), sent),
    updateWebhook: (sent) => http.POST(pathOf('updateWebhook'), sent),
    deleteWebhook: (sent) => http.POST(pathOf('deleteWebhook'), sent),
    rotateWebhookSecret: (sent) => http.POST(pathOf('rotateWebhookSecret'), sent),
    getWebhookDeliveries: (sent) => http.POST(pathOf('getWebhookDeliveries'), sent),
    redeliverWebhook: (sent) => http.POST(pathOf('redeliverWebhook'), sent),
    pingWebhook: (sent) => http.POST(pathOf('pingWebhook'), sent),
    getAttributes: (sent) => http.POST(pathOf('getAttributes'), sent),
    updateUserAttributes: (sent) => http.POST(pathOf('updateUserAttributes'), sent),
    logoutUser: (sent) => http.POST(pathOf('logoutUser'), sent),
    createGroup: (sent) => http.POST(pathOf('createGroup'), sent),
    updateGroup: (sent) => http.POST(pathOf('updateGroup'), sent),
    deleteGroup: (sent) => http.POST(pathOf('deleteGroup'), sent),
  };
}

/** `Basic base64(api_key:api_key_secret)`, from UTF-8 (btoa alone takes only Latin-1), in Node and in browsers. */
function basicAuthorization(apiKey: string, secret: string): string {
  return `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(`${apiKey}:${secret}`)))}`;
}

function environment(name: string): string | undefined {
  // Browsers have no process; there, everything comes from the options.
  return typeof process === 'undefined' ? undefined : process.env[name] || undefined;
}

function describeFailure(error: unknown, baseUrl: string, timeoutMs: number, signal: AbortSignal): ClientFailure {
  if (signal.aborted && (signal.reason as Error | undefined)?.name === 'TimeoutError') {
    return { code: 'timeout', error_message: `No answer from ${baseUrl} within ${timeoutMs} ms` };
  }
  const cause = (error as { cause?: { code?: string; message?: string } } | undefined)?.cause;
  const reason = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return { code: 'network_error', error_message: `Cannot reach the workspace service at ${baseUrl}: ${reason}` };
}

/**
 * In a browser, a page whose origin the service does not allow (CORS) gets
 * the same TypeError as one whose service is down. A `no-cors` request tells
 * them apart as far as a browser lets it: it is answered, opaquely, exactly
 * when the service is up. Returns the page's origin when the service answered
 * and so refused it; undefined outside a browser or on the service's own origin.
 */
async function refusedOrigin(baseUrl: string, fetchOne: (request: Request) => Promise<Response>): Promise<string | undefined> {
  const page = (globalThis as { location?: { origin?: string } }).location?.origin;
  if (!page || page === 'null' || new URL(baseUrl, page).origin === page) return undefined;
  try {
    await fetchOne(new Request(`${baseUrl}/healthz`, { mode: 'no-cors', signal: AbortSignal.timeout(5_000) }));
    return page;
  } catch {
    return undefined;
  }
}

/** A client with its own settings; the named exports below share one made from the environment. */
export function createWorkspaceClient(options: WorkspaceClientOptions = {}): WorkspaceClient {
  const baseUrl = (options.baseUrl ?? environment('WORKSPACE_URL') ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const defaults = {
    api_key: options.api_key ?? environment('WORKSPACE_API_KEY'),
    api_key_secret: options.api_key_secret ?? environment('WORKSPACE_API_KEY_SECRET'),
  };
  const senders = sendersOn(createClient<paths>({ baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) }));
  const credentialsIn = options.credentialsIn ?? 'body';
  const retry = retryPolicy(options.retry);

  async function call<Op extends OperationName>(
    operation: Op,
    params: Params<Op> | undefined,
    callOptions: AnyCallOptions = {},
  ): Promise<Result<Op>> {
    const api_key = params?.api_key ?? defaults.api_key;
    const api_key_secret = params?.api_key_secret ?? defaults.api_key_secret;
    if (credentialsIn !== 'session' && (!api_key || !api_key_secret)) {
      return {
        error: {
          code: 'not_configured',
          error_message: 'No API key: pass api_key and api_key_secret, or set WORKSPACE_API_KEY and WORKSPACE_API_KEY_SECRET',
        },
        attempts: 0,
        requestId: undefined,
        etag: undefined,
      };
    }
    // One key for every attempt of this call: the service makes a create once however often it arrives.
    const idempotencyKey = callOptions.idempotencyKey ?? (CREATES.has(operation) ? randomKey() : undefined);
    const startedAt = Date.now();
    for (let attempts = 1; ; attempts++) {
      const remaining = startedAt + retry.deadlineMs - Date.now();
      const outcome = await attempt(
        operation,
        params,
        { api_key: api_key ?? '', api_key_secret: api_key_secret ?? '' },
        Math.max(1, Math.min(timeoutMs, remaining)),
        {
          ...callOptions,
          idempotencyKey,
        },
      );
      const answered = outcome.response?.headers;
      const result = {
        ...outcome,
        attempts,
        requestId: answered?.get('x-request-id') ?? undefined,
        etag: answered?.get('etag') ?? undefined,
      } as Result<Op>;
      const wait = nextWait(
        operation,
        outcome.response
          ? {
              answered: true,
              status: outcome.response.status,
              serviceError: typeof outcome.error === 'object' && 'code' in outcome.error,
              code: outcome.error?.code,
              retryAfter: outcome.response.headers.get('retry-after'),
            }
          : { answered: false },
        { attempts, startedAt, now: Date.now(), idempotent: idempotencyKey !== undefined },
        retry,
      );
      // A refused origin is refused again on every try: only the service's settings change it.
      if (wait === undefined || callOptions.signal?.aborted || result.error?.code === 'origin_refused') return result;
      await pause(wait, callOptions.signal);
    }
  }

  /** One attempt: its answer, or the failure to get one. */
  async function attempt<Op extends OperationName>(
    operation: Op,
    params: Params<Op> | undefined,
    { api_key, api_key_secret }: Credentials,
    withinMs: number,
    callOptions: AnyCallOptions,
  ): Promise<{ data?: unknown; error?: ApiError | ClientFailure; response?: Response }> {
    const timeout = AbortSignal.timeout(withinMs);
    const signal = callOptions.signal ? AbortSignal.any([timeout, callOptions.signal]) : timeout;
    try {
      const send: Senders[Op] = senders[operation];
      const { api_key: _key, api_key_secret: _secret, ...fields } = params ?? {};
      const condition: Record<string, string> = {
        ...(callOptions.ifMatch === undefined ? {} : { 'If-Match': callOptions.ifMatch }),
        ...(callOptions.idempotencyKey === undefined ? {} : { 'Idempotency-Key': callOptions.idempotencyKey }),
      };
      // The operation's own fields (Params<Op>: its body without credentials) with the credentials
      // in the body or not: its RequestBody, which a spread of a generic type cannot show the compiler.
      if (credentialsIn === 'session') {
        // The cookie travels by itself; credentials only where the caller gave them (signIn).
        const csrf = options.csrfToken?.();
        return await send({
          body: (params ?? {}) as RequestBody<Op>,
          headers: { ...condition, ...(csrf === undefined ? {} : { 'X-CSRF-Token': csrf }) },
          signal,
        });
      }
      if (credentialsIn === 'body') {
        return await send({ body: { ...fields, api_key, api_key_secret } as RequestBody<Op>, headers: condition, signal });
      }
      const headers: Record<string, string> =
        credentialsIn === 'basic'
          ? { Authorization: basicAuthorization(api_key, api_key_secret), ...condition }
          : { 'api-key': api_key, 'api-key-secret': api_key_secret, ...condition };
      return await send({ body: fields as RequestBody<Op>, headers, signal });
    } catch (error) {
      const failure = describeFailure(error, baseUrl, withinMs, timeout);
      const origin = failure.code === 'network_error' ? await refusedOrigin(baseUrl, options.fetch ?? fetch) : undefined;
      if (origin === undefined) return { error: failure };
      return {
        error: {
          code: 'origin_refused',
          error_message: `The workspace service at ${baseUrl} refused this page's origin (${origin}): add it to the service's CORS_ORIGINS, or serve the page from the service's origin`,
        },
      };
    }
  }

  // Object.fromEntries loses the per-key types that `call` keeps; each entry is Call<Op> for its own Op.
  return Object.fromEntries(
    (Object.keys(senders) as OperationName[]).map((operation) => [
      operation,
      (params?: Params<typeof operation>, options?: CallOptionsOf<typeof operation>) => call(operation, params, options),
    ]),
  ) as unknown as WorkspaceClient;
}

let shared: WorkspaceClient | undefined;

/** Sets the settings the named exports use; without it they read the environment on first use. */
export function configure(options: WorkspaceClientOptions): void {
  shared = createWorkspaceClient(options);
}

const client = (): WorkspaceClient => (shared ??= createWorkspaceClient());

export const validateCredentials: WorkspaceClient['validateCredentials'] = (params, options) =>
  client().validateCredentials(params, options);
export const signIn: WorkspaceClient['signIn'] = (params, options) => client().signIn(params, options);
export const getSession: WorkspaceClient['getSession'] = (params, options) => client().getSession(params, options);
export const signOut: WorkspaceClient['signOut'] = (params, options) => client().signOut(params, options);
export const getUsers: WorkspaceClient['getUsers'] = (params, options) => client().getUsers(params, options);
export const getUser: WorkspaceClient['getUser'] = (params, options) => client().getUser(params, options);
export const createUser: WorkspaceClient['createUser'] = (params, options) => client().createUser(params, options);
export const updateUser: WorkspaceClient['updateUser'] = (params, options) => client().updateUser(params, options);
export const deleteUser: WorkspaceClient['deleteUser'] = (params, options) => client().deleteUser(params, options);
export const getGroups: WorkspaceClient['getGroups'] = (params, options) => client().getGroups(params, options);
export const addUserGroup: WorkspaceClient['addUserGroup'] = (params, options) => client().addUserGroup(params, options);
export const removeUserGroup: WorkspaceClient['removeUserGroup'] = (params, options) => client().removeUserGroup(params, options);
export const createApiKey: WorkspaceClient['createApiKey'] = (params, options) => client().createApiKey(params, options);
export const getApiKeys: WorkspaceClient['getApiKeys'] = (params, options) => client().getApiKeys(params, options);
export const revokeApiKey: WorkspaceClient['revokeApiKey'] = (params, options) => client().revokeApiKey(params, options);
export const getAuditEvents: WorkspaceClient['getAuditEvents'] = (params, options) => client().getAuditEvents(params, options);
export const getEvents: WorkspaceClient['getEvents'] = (params, options) => client().getEvents(params, options);
export const createWebhook: WorkspaceClient['createWebhook'] = (params, options) => client().createWebhook(params, options);
export const getWebhooks: WorkspaceClient['getWebhooks'] = (params, options) => client().getWebhooks(params, options);
export const updateWebhook: WorkspaceClient['updateWebhook'] = (params, options) => client().updateWebhook(params, options);
export const deleteWebhook: WorkspaceClient['deleteWebhook'] = (params, options) => client().deleteWebhook(params, options);
export const rotateWebhookSecret: WorkspaceClient['rotateWebhookSecret'] = (params, options) =>
  client().rotateWebhookSecret(params, options);
export const getWebhookDeliveries: WorkspaceClient['getWebhookDeliveries'] = (params, options) =>
  client().getWebhookDeliveries(params, options);
export const redeliverWebhook: WorkspaceClient['redeliverWebhook'] = (params, options) => client().redeliverWebhook(params, options);
export const pingWebhook: WorkspaceClient['pingWebhook'] = (params, options) => client().pingWebhook(params, options);
export const getAttributes: WorkspaceClient['getAttributes'] = (params, options) => client().getAttributes(params, options);
export const updateUserAttributes: WorkspaceClient['updateUserAttributes'] = (params, options) =>
  client().updateUserAttributes(params, options);
export const logoutUser: WorkspaceClient['logoutUser'] = (params, options) => client().logoutUser(params, options);
export const createGroup: WorkspaceClient['createGroup'] = (params, options) => client().createGroup(params, options);
export const updateGroup: WorkspaceClient['updateGroup'] = (params, options) => client().updateGroup(params, options);
export const deleteGroup: WorkspaceClient['deleteGroup'] = (params, options) => client().deleteGroup(params, options);

export interface EachUserOptions extends CallOptions {
  /** The client to ask; default the one the named exports share. */
  client?: WorkspaceClient;
}

/**
 * Every user, in the order asked for, fetched a page at a time by following
 * `next_cursor`: users added or removed meanwhile are neither repeated nor
 * skipped, and memory holds one page. An error answer ends the loop by throwing
 * a WorkspaceCallError, as an iterator has no other way to report one.
 *
 *     for await (const user of eachUser({ sort_by: 'created', page_size: 500 })) …
 */
export async function* eachUser(
  params: Omit<Params<'getUsers'>, 'page' | 'cursor'> = {},
  { client: via = client(), ...callOptions }: EachUserOptions = {},
): AsyncGenerator<User, void, undefined> {
  let cursor: string | null | undefined;
  // Always a page size: without one, get_users would answer with every user at once.
  const page_size = params.page_size ?? 100;
  do {
    const { api_key, api_key_secret } = params;
    const request = cursor ? { cursor, page_size, api_key, api_key_secret } : { ...params, page_size };
    const result = await via.getUsers(request, callOptions);
    if (result.error) throw new WorkspaceCallError(result.error);
    yield* result.data.users;
    cursor = result.data.next_cursor;
  } while (cursor);
}

/**
 * Every event of the change feed from `after` (or the oldest it reaches), once, in the order
 * of commit, by long poll, until the signal aborts (each-event.ts): resumes from its cursor
 * after failures that pass, and throws a WorkspaceCallError for one that does not.
 *
 *     for await (const event of eachEvent({ types: ['user.*'] })) …
 */
export function eachEvent(
  params: Omit<Params<'getEvents'>, 'wait_seconds'> = {},
  { client: via = client(), ...options }: EachEventOptions = {},
): AsyncGenerator<ChangeEvent, void, undefined> {
  return eachEventFrom(via, params, options);
}
