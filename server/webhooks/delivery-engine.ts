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
import pLimit from 'p-limit';
import type { Logger } from '../logger.js';
import { SERVICE, type AttemptOutcome, type DueDelivery, type ChangeEvent } from '../store/records.js';
import type { Store } from '../store/repositories.js';
import { nextAttemptAt, retryAfterMs } from './retry-schedule.js';
import type { Sender } from './send.js';
import { signedHeaders } from './signature.js';

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
}

/** Deliveries sent at once by an instance, and to one webhook. */
const CONCURRENCY = 16;
const PER_WEBHOOK = 2;
/** How long a claim holds a delivery: past the 15 s exchange, so that only a dead holder loses it. */
const LEASE_MS = 60_000;
const DISPATCH_BATCH = 500;

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
}: DeliveryEngineOptions) {
  const sending = pLimit(CONCURRENCY);
  const inFlight = new Map<string, number>();
  const running = new Set<Promise<void>>();
  const iso = (ms: number) => new Date(ms).toISOString();

  async function deliver(delivery: DueDelivery): Promise<void> {
    const started = now();
    const attempt = delivery.attempts + 1;
    const sent =
      delivery.body === undefined
        ? { error: 'the event is no longer kept (AUDIT_RETENTION_DAYS)' }
        : await send(delivery.url, signedHeaders(delivery.secrets, delivery.eventId, new Date(started), delivery.body), delivery.body);
    const finished = now();
    const answered = 'status' in sent;
    const delivered = answered && sent.status >= 200 && sent.status < 300;
    const gone = answered && sent.status === 410;
    const honoured = answered && (sent.status === 429 || sent.status === 503) ? retryAfterMs(sent.retryAfter, finished) : undefined;
    const next =
      delivered || gone || delivery.body === undefined ? undefined : nextAttemptAt(schedule, attempt, finished, random, honoured);
    const outcome: AttemptOutcome = {
      delivery,
      attemptedAt: iso(started),
      durationMs: finished - started,
      status: answered ? sent.status : null,
      error: answered ? null : sent.error,
      responseExcerpt: answered ? sent.excerpt : null,
      result: delivered ? { kind: 'delivered' } : next === undefined ? { kind: 'given_up' } : { kind: 'retry', at: iso(next) },
    };
    await store.webhooks.settle(outcome);
    observe?.attempted(delivered ? 'delivered' : next === undefined ? 'given_up' : 'failed');
    if (delivered) return;
    if (gone) return disable(delivery.webhookId, 'its receiver answered 410 Gone');
    const webhook = await store.webhooks.find(delivery.webhookId);
    if (webhook?.failingSince && finished - Date.parse(webhook.failingSince) >= disableAfterMs) {
      await disable(delivery.webhookId, `every delivery failed since ${webhook.failingSince}`);
    }
  }

  async function disable(webhookId: string, reason: string): Promise<void> {
    if (await store.webhooks.disable(webhookId, reason, SERVICE)) logger.warn({ webhook_id: webhookId, reason }, 'webhook disabled');
  }

  /** One round: dispatch what the log holds, then claim and start what is due; resolves once those are sent. */
  async function round(): Promise<number> {
    let dispatched: ChangeEvent[];
    do {
      dispatched = await store.webhooks.dispatch(iso(now()), DISPATCH_BATCH);
      for (const event of dispatched) observe?.dispatched(event);
    } while (dispatched.length === DISPATCH_BATCH);
    const room = CONCURRENCY - sending.activeCount - sending.pendingCount;
    if (room <= 0) return 0;
    const busy = [...inFlight].filter(([, count]) => count >= PER_WEBHOOK).map(([webhookId]) => webhookId);
    const due = await store.webhooks.claim(iso(now()), iso(now() + LEASE_MS), room, busy);
    const sends = due.map((delivery) => {
      inFlight.set(delivery.webhookId, (inFlight.get(delivery.webhookId) ?? 0) + 1);
      const done = sending(() => deliver(delivery))
        .catch((error: unknown) => logger.error({ err: error, webhook_id: delivery.webhookId }, 'webhook delivery failed to settle'))
        .finally(() => {
          inFlight.set(delivery.webhookId, (inFlight.get(delivery.webhookId) ?? 1) - 1);
          running.delete(done);
        });
      running.add(done);
      return done;
    });
    await Promise.all(sends);
    return due.length;
  }

  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let looping: Promise<void> | undefined;

  const loop = async () => {
    try {
      // Straight on while deliveries keep coming; a pause when there were none.
      while (!stopped && (await round()) > 0);
    } catch (error) {
      // A database fault: the next round tries again.
      logger.warn({ err: error }, 'webhook delivery round failed');
    }
    if (!stopped) {
      timer = setTimeout(() => {
        looping = loop();
      }, pollMs);
    }
  };

  return {
    /** Runs one round now (tests drive the engine with it and an injected clock). */
    round,
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
      looping = loop();
    },
    /** Stops looking for work and waits for the deliveries under way. */
    async stop(): Promise<void> {
      stopped = true;
      clearTimeout(timer);
      await looping;
      await Promise.all(running);
    },
  };
}

export type DeliveryEngine = ReturnType<typeof deliveryEngine>;
