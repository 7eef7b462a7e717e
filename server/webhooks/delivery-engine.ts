/**
 * Webhook delivery (docs/events.md), in every instance: a dispatcher follows
 * the change log into deliveries (one instance at a time, store-side), and a
 * deliverer claims the deliveries that are due (several instances share them:
 * each claims with a lease that another takes over when its holder dies),
 * POSTs each signed body, and settles it: delivered on a 2xx, tried again on
 * the retry schedule otherwise (Retry-After honoured on 429 and 503), the
 * webhook disabled on a 410 Gone or after failing for WEBHOOK_DISABLE_AFTER_DAYS.
 *
 * Delivery is at least once: an instance that dies between a receiver's 2xx
 * and settling leaves the delivery to be sent again when its lease ends, with
 * the same `webhook-id`. A receiver that is down slows nothing else: sending
 * is off the request path, bounded per webhook and in all, each exchange
 * within 15 s.
 */
import { randomUUID } from 'node:crypto';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Logger } from '../logger.js';
import { SERVICE, type AttemptOutcome, type DueDelivery, type ChangeEvent } from '../store/records.js';
import type { Store } from '../store/repositories.js';
import { nextAttemptAt, retryAfterMs } from './retry-schedule.js';
import type { Sender } from './send.js';
import { signedHeaders } from './signature.js';
import { loadWatch } from './load-watch.js';

export interface DeliveryEngineOptions {
  store: Store;
  send: Sender;
  logger: Logger;
  /** The waits after each failed attempt (retry-schedule.ts). */
  schedule: readonly number[];
  /** How long a webhook may fail every delivery before it is disabled. */
  disableAfterMs: number;
  now?: () => number;
  random?: () => number;
  /** How often the engine looks for events and due deliveries when it has nothing in hand. */
  pollMs?: number;
  /** Told of each event dispatched and each attempt's outcome (metrics.ts). */
  observe?: { dispatched(event: ChangeEvent): void; attempted(outcome: 'delivered' | 'failed' | 'given_up'): void };
  /** How many requests the instance has received so far: a busy event loop is yielded to them, never to the deliveries themselves. */
  requestsReceived: () => number;
  /** How many turns of the event loop received them: a loop is yielded only to requests that wait for it (load-watch.ts). */
  turnsWithRequests: () => number;
}

/**
 * Deliveries sent at once by an instance, and to one webhook; and deliveries claimed and
 * not yet sent, in all and of one webhook. A receiver that hangs holds at most its share of
 * either, never the others' room; one that answers quickly gets a turn's worth at a time.
 */
const SENDING = 64;
const SENDING_PER_WEBHOOK = 16;
const IN_HAND = 256;
const IN_HAND_PER_WEBHOOK = 64;
/** How long a claim holds a delivery: past the 15 s exchange, so that only a dead holder loses it. */
const LEASE_MS = 60_000;
const DISPATCH_BATCH = 500;
/**
 * The pause between turns while deliveries flow. A turn is one commit, whatever it holds, so
 * the attempts that finish meanwhile are recorded together: without it, each would cost a
 * commit of its own, as many as the writes the webhooks report on.
 */
const TURN_MS = 10;
/** The pause between turns while the engine yields the event loop to requests (load-watch.ts). */
const YIELD_MS = 200;

export function deliveryEngine({
  store,
  send,
  logger,
  schedule,
  disableAfterMs,
  now = Date.now,
  random = Math.random,
  pollMs = 50,
  observe,
  requestsReceived,
  turnsWithRequests,
}: DeliveryEngineOptions) {
  /** Deliveries claimed and not yet sent, by webhook; each webhook's sends, and all. */
  const inHand = new Map<string, number>();
  const sendingTo = new Map<string, LimitFunction>();
  const sending = pLimit(SENDING);
  const running = new Set<Promise<void>>();
  /** Attempts made and not yet recorded: the next turn records them. */
  let finished: AttemptOutcome[] = [];
  const iso = (ms: number) => new Date(ms).toISOString();

  async function attempt(delivery: DueDelivery): Promise<AttemptOutcome> {
    const started = now();
    const attempt = delivery.attempts + 1;
    const sent =
      delivery.body === undefined
        ? { error: 'the event is no longer kept (AUDIT_RETENTION_DAYS)' }
        : await send(delivery.url, signedHeaders(delivery.secrets, delivery.eventId, new Date(started), delivery.body), delivery.body);
    const finishedAt = now();
    const answered = 'status' in sent;
    const delivered = answered && sent.status >= 200 && sent.status < 300;
    const gone = answered && sent.status === 410;
    const honoured = answered && (sent.status === 429 || sent.status === 503) ? retryAfterMs(sent.retryAfter, finishedAt) : undefined;
    const next =
      delivered || gone || delivery.body === undefined ? undefined : nextAttemptAt(schedule, attempt, finishedAt, random, honoured);
    return {
      delivery,
      attemptedAt: iso(started),
      durationMs: finishedAt - started,
      status: answered ? sent.status : null,
      error: answered ? null : sent.error,
      responseExcerpt: answered ? sent.excerpt : null,
      result: delivered ? { kind: 'delivered' } : next === undefined ? { kind: 'given_up' } : { kind: 'retry', at: iso(next) },
    };
  }

  /** Starts sending a claimed delivery; its outcome waits for the next turn. */
  function start(delivery: DueDelivery): void {
    const { webhookId } = delivery;
    inHand.set(webhookId, (inHand.get(webhookId) ?? 0) + 1);
    let toWebhook = sendingTo.get(webhookId);
    if (!toWebhook) sendingTo.set(webhookId, (toWebhook = pLimit(SENDING_PER_WEBHOOK)));
    const done = toWebhook(() => sending(() => attempt(delivery)))
      .then((outcome) => {
        finished.push(outcome);
      })
      .catch((error: unknown) => logger.error({ err: error, webhook_id: delivery.webhookId }, 'webhook delivery failed'))
      .finally(() => {
        const left = (inHand.get(webhookId) ?? 1) - 1;
        if (left > 0) inHand.set(webhookId, left);
        else {
          inHand.delete(webhookId);
          sendingTo.delete(webhookId);
        }
        running.delete(done);
      });
    running.add(done);
  }

  /** What recorded attempts mean for their webhooks: disabled on a 410 Gone, or after failing too long. */
  async function judge(outcomes: readonly AttemptOutcome[]): Promise<void> {
    const failing = new Set<string>();
    for (const { delivery, status, result } of outcomes) {
      if (status === 410) await disable(delivery.webhookId, 'its receiver answered 410 Gone');
      else if (result.kind !== 'delivered') failing.add(delivery.webhookId);
    }
    for (const webhookId of failing) {
      const webhook = await store.webhooks.find(webhookId);
      if (webhook?.failingSince && now() - Date.parse(webhook.failingSince) >= disableAfterMs) {
        await disable(webhookId, `every delivery failed since ${webhook.failingSince}`);
      }
    }
  }

  async function disable(webhookId: string, reason: string): Promise<void> {
    if (await store.webhooks.disable(webhookId, reason, SERVICE)) logger.warn({ webhook_id: webhookId, reason }, 'webhook disabled');
  }

  /**
   * One turn, one transaction: record the attempts finished since the last, dispatch what the
   * log holds, claim what is due within the room left, and start sending it.
   */
  async function turn({ claiming = true } = {}): Promise<{ dispatched: number; claimed: number; settled: number }> {
    const outcomes = finished;
    finished = [];
    let result;
    try {
      result = await store.webhooks.turn({
        now: iso(now()),
        settle: outcomes,
        dispatchLimit: claiming ? DISPATCH_BATCH : 0,
        claim: { leaseUntil: iso(now() + LEASE_MS), room: claiming ? IN_HAND - running.size : 0, perWebhook: IN_HAND_PER_WEBHOOK, inHand },
      });
    } catch (error) {
      // Recorded at the next turn instead; the attempts stand.
      finished = [...outcomes, ...finished];
      throw error;
    }
    for (const event of result.dispatched) observe?.dispatched(event);
    for (const { result: outcome } of outcomes) {
      observe?.attempted(outcome.kind === 'delivered' ? 'delivered' : outcome.kind === 'retry' ? 'failed' : 'given_up');
    }
    await judge(outcomes);
    for (const delivery of result.claimed) start(delivery);
    return { dispatched: result.dispatched.length, claimed: result.claimed.length, settled: outcomes.length };
  }

  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let looping: Promise<void> | undefined;

  const load = loadWatch({
    now: () => performance.now(),
    loopActiveMs: () => performance.eventLoopUtilization().active,
    requestsReceived,
    turnsWithRequests,
  });

  const loop = async () => {
    let flowing = false;
    try {
      const { dispatched, claimed, settled } = await turn();
      flowing = dispatched + claimed + settled > 0 || running.size > 0;
    } catch (error) {
      // A database fault: the next turn tries again.
      logger.warn({ err: error }, 'webhook delivery turn failed');
    }
    const yielding = load.yields();
    if (!stopped) {
      timer = setTimeout(
        () => {
          looping = loop();
        },
        !flowing ? pollMs : yielding ? YIELD_MS : TURN_MS,
      );
    }
  };

  return {
    /**
     * One turn now, then the sends it started, recorded: how many it claimed (tests drive
     * the engine with it and an injected clock).
     */
    async round(): Promise<number> {
      const { claimed } = await turn();
      await Promise.all(running);
      await turn({ claiming: false });
      return claimed;
    },
    /** Sends a `webhook.ping` to a webhook: queued as a delivery of a body of its own. */
    async ping(webhookId: string): Promise<void> {
      const eventId = randomUUID();
      const body = JSON.stringify({
        event_id: eventId,
        type: 'webhook.ping',
        timestamp: iso(now()),
        data: { resource: { type: 'webhook', id: webhookId, version: null } },
      });
      await store.webhooks.queuePayload(webhookId, { eventId, eventType: 'webhook.ping', body }, iso(now()));
    },
    start() {
      stopped = false;
      looping = store.webhooks.releaseOrphanedClaims().then(
        (released) => {
          if (released > 0) logger.info({ deliveries: released }, 'webhook deliveries claimed before a stop sent again');
          return loop();
        },
        (error: unknown) => {
          logger.warn({ err: error }, 'webhook claims left by a stop not released: they are sent again when their leases end');
          return loop();
        },
      );
    },
    /** Stops looking for work, waits for the deliveries under way and records them. */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await looping;
      await Promise.all(running);
      if (finished.length === 0) return;
      try {
        await turn({ claiming: false });
      } catch (error) {
        // Their leases end and another instance, or the next start, sends them again (at least once).
        logger.warn({ err: error }, 'webhook attempts not recorded at stop');
      }
    },
  };
}

export type DeliveryEngine = ReturnType<typeof deliveryEngine>;
