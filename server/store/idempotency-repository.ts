/**
 * Requests sent with an Idempotency-Key, kept to answer their retries
 * (server/http/idempotency.ts). A request that changes something is recorded
 * by its change's own transaction (`recordClaim`, called by the audit trail),
 * so that a key names a change only if that change committed, and two requests
 * under one key cannot both make theirs; its answer is added once known.
 */
import type { Kysely } from 'kysely';
import type { Db } from './database-traits.js';
import { type IdempotencyClaim, IdempotencyKeyHeldError, type IdempotentRequest, type KeptAnswer, type WithheldAnswer } from './records.js';
import type { IdempotencyRepository } from './repositories.js';
import type { Database } from './schema.js';

const rowOf = (claim: IdempotencyClaim) => ({
  api_key: claim.apiKey,
  idempotency_key: claim.key,
  fingerprint: claim.fingerprint,
  holder: claim.holder,
  created: claim.created,
  expires: claim.expires,
});

/**
 * Writes the claim on `db`, a change's own transaction, unless the request wrote it already (by
 * an earlier change). Throws IdempotencyKeyHeldError, undoing the change, when another request
 * holds the key: one that runs on another instance, under the same key, at the same time.
 */
export async function recordClaim(db: Db, claim: IdempotencyClaim): Promise<void> {
  const written = await db
    .insertInto('idempotency_keys')
    .values(rowOf(claim))
    .onConflict((conflict) => conflict.columns(['api_key', 'idempotency_key']).doNothing())
    .returning('holder')
    .executeTakeFirst();
  if (written) return;
  const holder = await db
    .selectFrom('idempotency_keys')
    .select('holder')
    .where('api_key', '=', claim.apiKey)
    .where('idempotency_key', '=', claim.key)
    .executeTakeFirst();
  if (holder?.holder !== claim.holder) throw new IdempotencyKeyHeldError();
}

/** A kept answer from its row: its status alone when it was withheld. */
function answerOf(status: number, answer: string | null): KeptAnswer | WithheldAnswer {
  if (answer === null) return { status, withheld: true };
  return { status, ...(JSON.parse(answer) as Omit<KeptAnswer, 'status'>) };
}

export class KyselyIdempotencyRepository implements IdempotencyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async find(apiKey: string, key: string, now: string): Promise<IdempotentRequest | undefined> {
    const row = await this.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('api_key', '=', apiKey)
      .where('idempotency_key', '=', key)
      .where('expires', '>', now)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      fingerprint: row.fingerprint,
      holder: row.holder,
      created: row.created,
      ...(row.status === null ? {} : { answer: answerOf(row.status, row.answer) }),
    };
  }

  async keep(claim: IdempotencyClaim, kept: KeptAnswer | WithheldAnswer): Promise<void> {
    const { status } = kept;
    const answer = 'withheld' in kept ? null : JSON.stringify({ headers: kept.headers, body: kept.body });
    // The row is the request's own (written by its change, or now); one another request holds is left alone.
    await this.db
      .insertInto('idempotency_keys')
      .values({ ...rowOf(claim), status, answer })
      .onConflict((conflict) =>
        conflict
          .columns(['api_key', 'idempotency_key'])
          .doUpdateSet({ status, answer })
          .where('idempotency_keys.holder', '=', claim.holder),
      )
      .execute();
  }

  async forgetExpired(apiKey: string, key: string, now: string): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('api_key', '=', apiKey)
      .where('idempotency_key', '=', key)
      .where('expires', '<=', now)
      .execute();
  }

  async prune(now: string, limit: number): Promise<number> {
    const expired = this.db.selectFrom('idempotency_keys').select('idempotency_key').where('expires', '<=', now).limit(limit);
    const result = await this.db
      .deleteFrom('idempotency_keys')
      .where('expires', '<=', now)
      .where('idempotency_key', 'in', expired)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
