/**
 * Idempotency keys, as the IETF draft "The Idempotency-Key HTTP Header Field"
 * describes them: a client sends a key of its choosing with a change, and again
 * with every retry of it; the change is made once, and every retry with the same
 * request gets the first answer again (`Idempotent-Replayed: true`).
 *
 * - Keys are the API key's own: the same key from two API keys names two requests.
 * - The key is recorded by the change's own transaction (store/idempotency-repository.ts):
 *   a key names a change only if it committed, and two requests under one key, even on two
 *   instances, cannot both make theirs. The answer is added once it is known, before it is sent.
 * - While a request runs, a retry is 409 `idempotency_key_in_use`, within this instance
 *   at once, from another once the change's transaction has recorded the key.
 * - The same key with another request (operation or body, credentials and passwords aside) is 422.
 * - An answer refusing the request's input (400) or a failure (5xx) is not kept, so that
 *   the request can be sent again, corrected or later; nor is an answer showing a secret,
 *   which is shown once: its retries are 409 `idempotency_answer_not_kept`, as are those
 *   of a change whose answer was lost when the service stopped before keeping it.
 */
import { hash, randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import stableStringify from 'safe-stable-stringify';
import { IDEMPOTENCY_KEY_HEADER, type IdempotencyKeyUse } from '../../lib/contract/idempotency-key.js';
import { CREDENTIAL_FIELDS } from '../../lib/contract/credentials.js';
import type { Logger } from '../logger.js';
import { ServiceError } from '../service-errors.js';
import type { IdempotencyClaim, KeptAnswer } from '../store/records.js';
import type { Store } from '../store/repositories.js';
import { requestLogger } from './request-logging.js';

/** How long a key and its answer are kept unless IDEMPOTENCY_KEY_HOURS says otherwise: a day, as the draft's examples and Stripe do. */
export const DEFAULT_IDEMPOTENCY_KEY_HOURS = 24;

/**
 * How long a key whose change committed may go without its answer before the answer is taken
 * for lost: longer than any request runs (its body must arrive within 30 s, and each database
 * statement is bounded; store/timeouts.ts). Before that, the request is taken to be running.
 */
export const ANSWER_PENDING_MS = 120_000;

/** The headers that describe an answer, kept with it and sent again with its replay. */
const KEPT_HEADERS = ['content-type', 'etag', 'location'] as const;

export const idempotencyKeyInUse = () =>
  new ServiceError(409, 'idempotency_key_in_use', 'A request with this Idempotency-Key is still running; retry it later');
export const idempotencyKeyReused = () =>
  new ServiceError(422, 'idempotency_key_reused', 'This Idempotency-Key was sent with another request; use a new key for a new request');
export const idempotencyAnswerNotKept = () =>
  new ServiceError(
    409,
    'idempotency_answer_not_kept',
    'The request with this Idempotency-Key made its change, but its answer is not kept; read the record to see it',
  );

/** The key as sent: the draft's structured-field string (quoted) or, as most clients send it, bare. */
const keyOf = (header: string) => (header.startsWith('"') && header.endsWith('"') && header.length >= 2 ? header.slice(1, -1) : header);

/** A body as its fingerprint takes it: without the credentials a Kasm client sends in it, nor any password. */
function withoutSecrets(value: unknown, top = true): unknown {
  if (Array.isArray(value)) return value.map((item) => withoutSecrets(item, false));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([name]) => !(top && CREDENTIAL_FIELDS.includes(name)) && name.toLowerCase() !== 'password')
      .map(([name, member]) => [name, withoutSecrets(member, false)]),
  );
}

/**
 * What makes two requests the same request: the method, the path and the body, its members in
 * any order. The credentials are left out (a rotated secret is the same request), and so are
 * passwords: the fingerprint is kept with the key, and a digest of a password is no place for it.
 */
export function fingerprintOf(req: Pick<Request, 'method' | 'originalUrl' | 'body'>): string {
  const path = req.originalUrl.split('?')[0];
  return hash('sha256', `${req.method} ${path}\n${stableStringify(withoutSecrets(req.body)) ?? ''}`, 'hex');
}

export interface IdempotencyOptions {
  store: Pick<Store, 'idempotency'>;
  /** How long a key and its answer are kept (IDEMPOTENCY_KEY_HOURS). */
  keptForMs: number;
}

/** Sends a kept answer again. */
function replay(res: Response, answer: KeptAnswer): void {
  res.status(answer.status).set(answer.headers).set('Idempotent-Replayed', 'true');
  res.end(answer.body);
}

/**
 * Hands the answer about to be sent to `keep`, and sends it once `keep` has settled: a client
 * that has the answer finds it kept when it retries.
 */
function beforeSending(res: Response, keep: (answer: KeptAnswer) => Promise<void>): void {
  const chunks: Buffer[] = [];
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  const collect = (chunk: unknown, encoding?: unknown) => {
    if (typeof chunk === 'string') chunks.push(Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'));
    else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
  };
  // Named before they are set on `res`: V8 allocates a function written straight into a property
  // (`res.write = (…) => …`) in its old generation, and the young request it closes over would then
  // outlive scavenges until a full collection (BENCHMARKS.md, "What outlives a scavenge").
  const collectingWrite = (chunk: unknown, ...rest: unknown[]) => {
    collect(chunk, rest[0]);
    return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
  };
  const keepingEnd = (...args: unknown[]) => {
    if (typeof args[0] !== 'function') collect(args[0], args[1]);
    const headers = Object.fromEntries(
      KEPT_HEADERS.flatMap((name) => {
        const value = res.getHeader(name);
        return value === undefined ? [] : [[name, String(value)]];
      }),
    );
    void keep({ status: res.statusCode, headers, body: Buffer.concat(chunks).toString('utf8') }).finally(() =>
      (end as (...endArgs: unknown[]) => void)(...args),
    );
    return res;
  };
  res.write = collectingWrite as Response['write'];
  res.end = keepingEnd as Response['end'];
}

/** Whether an answer is kept for the key's retries: not a refusal of the input, which can be corrected, nor a failure. */
const isKept = (status: number) => status < 500 && status !== 400;

/** The idempotency keys of one service: the requests this instance runs, and the store that keeps the rest. */
export class IdempotentRequests {
  /** The keys of requests running here, by API key and key. */
  readonly #running = new Set<string>();

  constructor(private readonly options: IdempotencyOptions) {}

  /** The middleware for an operation (after authentication: a key is its API key's), by how the operation takes a key. */
  for(use: IdempotencyKeyUse): RequestHandler {
    if (use === 'not-taken') return (_req, _res, next) => void next();
    return (req, res, next) =>
      this.#handle(req, res, use === 'answer-withheld').then((outcome) => {
        if (outcome !== 'answered') next();
      }, next);
  }

  /** Resolves to go on with the request, having claimed its key; answers a retry itself, resolving with 'answered'. */
  async #handle(req: Request, res: Response, withheld: boolean): Promise<'go on' | 'answered'> {
    const header = req.get(IDEMPOTENCY_KEY_HEADER);
    const apiKey = (res.locals.apiKey as { api_key: string } | undefined)?.api_key;
    if (header === undefined || apiKey === undefined) return 'go on';
    const key = keyOf(header);
    const running = `${apiKey}\n${key}`;
    if (this.#running.has(running)) throw idempotencyKeyInUse();
    this.#running.add(running);
    const release = () => this.#running.delete(running);
    try {
      const now = new Date();
      const fingerprint = fingerprintOf(req);
      const { idempotency } = this.options.store;
      const kept = await idempotency.find(apiKey, key, now.toISOString());
      if (kept) {
        if (kept.fingerprint !== fingerprint) throw idempotencyKeyReused();
        if (!kept.answer) {
          const pending = now.getTime() - Date.parse(kept.created) < ANSWER_PENDING_MS;
          throw pending ? idempotencyKeyInUse() : idempotencyAnswerNotKept();
        }
        if ('withheld' in kept.answer) throw idempotencyAnswerNotKept();
        release();
        replay(res, kept.answer);
        return 'answered';
      }
      // An expired key may be taken again: its row goes now, not at the next pruning.
      await idempotency.forgetExpired(apiKey, key, now.toISOString());
      const claim: IdempotencyClaim = {
        apiKey,
        key,
        fingerprint,
        holder: randomUUID(),
        created: now.toISOString(),
        expires: new Date(now.getTime() + this.options.keptForMs).toISOString(),
      };
      res.locals.idempotency = claim;
      beforeSending(res, (answer) => this.#keep(claim, answer, withheld, requestLogger(req, res)).finally(release));
      return 'go on';
    } catch (error) {
      release();
      throw error;
    }
  }

  async #keep(claim: IdempotencyClaim, answer: KeptAnswer, withheld: boolean, log: Logger): Promise<void> {
    if (!isKept(answer.status)) return;
    try {
      await this.options.store.idempotency.keep(
        claim,
        withheld && answer.status < 300 ? { status: answer.status, withheld: true } : answer,
      );
    } catch (error) {
      // The change stands and its answer goes out; a retry is told that the answer is not kept.
      log.warn({ err: error }, 'the answer to a request with an Idempotency-Key could not be kept');
    }
  }
}

/** The claim a request's change records, when it came with an Idempotency-Key: for the change's author. */
export const idempotencyClaimOf = (res: Response): { idempotency?: IdempotencyClaim } => {
  const claim = res.locals.idempotency as IdempotencyClaim | undefined;
  return claim ? { idempotency: claim } : {};
};
