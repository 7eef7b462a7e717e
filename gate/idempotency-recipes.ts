/**
 * What the gate checks of Idempotency-Keys (docs/api.md, "Retries"), on every
 * operation that takes one, through the recipes of its 422 and of the 409 that
 * only a key can bring:
 * - on the way to the 422, a request sent twice under one key: the second gets
 *   the first answer again, `Idempotent-Replayed: true` (or, for an answer that
 *   shows a secret, 409 `idempotency_answer_not_kept`);
 * - the 422: a key first sent with another request (a new group's);
 * - the 409: a key whose first request is held open in its handler (the gate's
 *   self-check only), or, where the answer shows a secret, already answered.
 */
import { SCIM_BASE_PATH } from '../lib/contract/scim-operations.js';
import type { Fixtures } from './fixtures.js';
import type { Answer, RawRequest } from './http.js';
import type { PreparedRequest } from './recipes.js';

/** The request under `key`. */
export const withKey = (request: PreparedRequest, key: string): PreparedRequest => ({
  ...request,
  headers: { ...request.headers, 'Idempotency-Key': key },
});

/** A workspace operation's request as the gate sends it itself. */
export const workspaceRequest = (path: string, request: PreparedRequest): RawRequest => ({
  method: 'POST',
  path: `${path}${request.query ?? ''}`,
  headers: { 'Content-Type': 'application/json', ...request.headers },
  body: JSON.stringify(request.body ?? {}),
});

/** A SCIM operation's request as the gate sends it itself. */
export const scimRequest = (method: RawRequest['method'], request: PreparedRequest): RawRequest => ({
  method,
  path: `${SCIM_BASE_PATH}${request.path ?? ''}${request.query ?? ''}`,
  headers: { 'Content-Type': 'application/scim+json', ...request.headers },
  ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
});

const codeOf = (answer: Answer): string => {
  const body = answer.body as { code?: unknown; scimType?: unknown } | undefined;
  const code = body?.code ?? body?.scimType;
  return typeof code === 'string' ? code : '';
};

/**
 * Sends `raw` twice under a new key; throws unless the second answer is the first again
 * (or, with `withheld`, 409 `idempotency_answer_not_kept`). Resolves with the first answer.
 */
export async function expectReplay(f: Fixtures, raw: RawRequest, withheld: boolean): Promise<Answer> {
  const keyed = { ...raw, headers: { ...raw.headers, 'Idempotency-Key': f.idempotencyKey() } };
  const first = await f.request(keyed);
  if (first.status >= 300) throw new Error(`a request under a new Idempotency-Key failed: ${first.status} ${first.text.slice(0, 200)}`);
  const retry = await f.request(keyed);
  if (withheld) {
    if (retry.status !== 409 || !/^idempotency_?answer_?not_?kept$/i.test(codeOf(retry)))
      throw new Error(
        `the retry of an answer showing a secret got ${retry.status} ${retry.text.slice(0, 200)}, not 409 idempotency_answer_not_kept`,
      );
    return first;
  }
  const replayed = retry.headers.get('idempotent-replayed') === 'true';
  if (!replayed || retry.status !== first.status || retry.text !== first.text)
    throw new Error(
      `the retry under the same Idempotency-Key was not the first answer again: ${retry.status} (Idempotent-Replayed: ${retry.headers.get('idempotent-replayed')}) after ${first.status}`,
    );
  return first;
}

/** Sends a new group's request under `key`, so that any other request under it is another request. */
export async function spendKey(f: Fixtures, key: string): Promise<void> {
  const answer = await f.request(
    workspaceRequest('/api/public/create_group', withKey({ body: { ...f.admin, target_group: { name: f.groupName() } } }, key)),
  );
  if (answer.status !== 200) throw new Error(`create_group under an Idempotency-Key failed: ${answer.status} ${answer.text.slice(0, 200)}`);
}
