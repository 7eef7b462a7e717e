/**
 * Keeps the audit trail to AUDIT_RETENTION_DAYS: in the background, now and
 * then, it deletes the oldest events past that age in small batches, yielding
 * between batches, so that pruning a large backlog never holds up a request.
 * The same pass deletes the heads of users' event chains left with no event
 * (user-event-chains.ts), and the Idempotency-Keys past their time (IDEMPOTENCY_KEY_HOURS).
 * Several instances on one PostgreSQL database may all prune: a batch deletes
 * what is still there.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Logger } from './logger.js';
import type { Store } from './store/repositories.js';

export interface AuditRetentionOptions {
  days: number;
  /** How often to look for events past their age. */
  intervalMs?: number;
  /** Events deleted per statement. */
  batch?: number;
  logger: Logger;
  now?: () => Date;
}

export const AUDIT_PRUNE_INTERVAL_MS = 60 * 60 * 1000;
export const AUDIT_PRUNE_BATCH = 500;

export interface AuditRetention {
  /** Deletes every event past its age, batch by batch; resolves with how many. */
  pruneNow(): Promise<number>;
  stop(): void;
}

export function startAuditRetention(
  store: Store,
  { days, intervalMs = AUDIT_PRUNE_INTERVAL_MS, batch = AUDIT_PRUNE_BATCH, logger, now = () => new Date() }: AuditRetentionOptions,
): AuditRetention {
  let running: Promise<number> | undefined;
  const pruneNow = () => {
    running ??= (async () => {
      const before = new Date(now().getTime() - days * 24 * 60 * 60 * 1000).toISOString();
      let pruned = 0;
      for (;;) {
        const deleted = await store.audit.prune(before, batch);
        pruned += deleted;
        if (deleted < batch) break;
        await nextTurn();
      }
      if (pruned > 0) {
        // The chains of users whose events are all gone now lead nowhere: their heads go too.
        let heads = 0;
        let after: string | undefined;
        do {
          const swept = await store.audit.pruneChainHeads(after, batch);
          heads += swept.deleted;
          after = swept.next;
          await nextTurn();
        } while (after !== undefined);
        logger.info({ pruned, heads, before }, 'audit events past AUDIT_RETENTION_DAYS deleted');
      }
      // Expired keys are ignored already; deleting them only keeps the table small.
      while ((await store.idempotency.prune(now().toISOString(), batch)) === batch) await nextTurn();
      return pruned;
    })().finally(() => (running = undefined));
    return running;
  };
  const prune = () =>
    void pruneNow().catch((error: unknown) => logger.error({ err: error }, 'pruning the audit trail failed; trying again later'));
  const first = setTimeout(prune, 0);
  const timer = setInterval(prune, intervalMs);
  first.unref();
  timer.unref();
  return {
    pruneNow,
    stop() {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
