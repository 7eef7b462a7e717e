/**
 * Change events and webhooks, against a receiver that answers every delivery at once
 * (scripts/bench/webhook-receiver.ts, a process of its own):
 * (o) update_user on a service with one webhook subscribed to every event, against the same
 *     service without one, interleaved (target ≥ 0.9×: the event is the audit row every write
 *     already wrote; what the webhook adds is its delivery);
 * (p) the time from a write's commit to its delivery's arrival, at 500 writes/s
 *     (targets p50 ≤ 50 ms, p99 ≤ 250 ms);
 * (q) a backlog of DRAIN_EVENTS events owed to one webhook, drained from the service's start
 *     (target ≥ 1,000 deliveries/s).
 */
import { join } from 'node:path';
import { seedAuditEvents } from '../seed.js';
import {
  compare,
  copyDatabase,
  DURATION_S,
  Latencies,
  measured,
  posting,
  recorded,
  quick,
  ready,
  SAMPLE_MS,
  SERVICE,
  type ScenarioOutcome,
  shown,
  startServer,
} from '../kit.js';
import { updateBody } from './writes.js';
import type { BenchRun } from './run.js';

const DRAIN_EVENTS = Number(process.env.BENCH_DRAIN_EVENTS) || (quick ? 10_000 : 100_000);
const WRITES_PER_SECOND = 500;

interface ReceiverStats {
  received: number;
  distinct: number;
  p50_ms: number;
  p99_ms: number;
  first_at: number;
  last_at: number;
}

/** Polls until `done` holds of the receiver's figures, or `withinMs` passed; returns the last figures. */
async function receiverWhen(url: string, done: (stats: ReceiverStats) => boolean, withinMs: number): Promise<ReceiverStats> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const stats = (await (await fetch(`${url}/stats`)).json()) as ReceiverStats;
    if (done(stats) || Date.now() > deadline) return stats;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Waits until the receiver has heard nothing new for a second: what was owed is delivered. */
async function settled(url: string): Promise<void> {
  let last = -1;
  await receiverWhen(
    url,
    (stats) => {
      const quiet = stats.received === last && Date.now() - stats.last_at > 1000;
      last = stats.received;
      return quiet;
    },
    60_000,
  );
}

export async function events({ directory, small }: BenchRun): Promise<ScenarioOutcome> {
  const receiver = await startServer('scripts/bench/webhook-receiver.ts', {}, (url) => fetch(`${url}/stats`));
  const webhooks = { WEBHOOK_ALLOW_PRIVATE: 'true' };

  // (o) Two copies of the 10,000 users: one service with a webhook, one without.
  await copyDatabase(join(directory, 'users-10k.db'), join(directory, 'events-with.db'));
  await copyDatabase(join(directory, 'users-10k.db'), join(directory, 'events-without.db'));
  const without = await startServer(SERVICE, { DATABASE_URL: `sqlite:${join(directory, 'events-without.db')}`, ...webhooks }, ready);
  const withWebhook = await startServer(SERVICE, { DATABASE_URL: `sqlite:${join(directory, 'events-with.db')}`, ...webhooks }, ready);
  const created = await fetch(`${withWebhook.url}/api/public/create_webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...small.credentials, target_webhook: { url: `${receiver.url}/hook` } }),
  });
  if (created.status !== 200) throw new Error(`create_webhook answered ${created.status}: ${await created.text()}`);
  const updates = posting('/api/public/update_user', updateBody(small.userIds, small.credentials));
  const side = await compare([
    { name: '    update_user, no webhook', url: without.url, requests: updates },
    { name: '(o) update_user, one webhook', url: withWebhook.url, requests: updates },
  ]);
  await without.stop();
  const loadEnded = Date.now();
  await settled(receiver.url);
  const afterO = (await (await fetch(`${receiver.url}/stats`)).json()) as ReceiverStats;
  const deliveredDuringO = afterO.distinct;
  // An overloaded instance serves its writes first (docs/events.md): how long its deliveries took to catch up.
  const catchUpSeconds = Math.max(0, (afterO.last_at - loadEnded) / 1000);

  // (p) Commit to receipt at a steady rate.
  await fetch(`${receiver.url}/reset`, { method: 'POST' });
  const latencies = new Latencies();
  const steady = measured(
    `(p) update_user at ${WRITES_PER_SECOND}/s, one webhook`,
    await recorded(
      {
        url: withWebhook.url,
        connections: 10,
        overallRate: WRITES_PER_SECOND,
        duration: DURATION_S,
        sampleInt: SAMPLE_MS,
        requests: updates,
      },
      latencies,
    ),
    latencies,
  );
  const writes = Math.round(steady.rps * DURATION_S);
  await settled(receiver.url);
  const latency = (await (await fetch(`${receiver.url}/stats`)).json()) as ReceiverStats;
  await withWebhook.stop();

  // (q) A backlog owed to the webhook before the service starts: dispatched and delivered from its start.
  await fetch(`${receiver.url}/reset`, { method: 'POST' });
  const backlog = await seedAuditEvents(join(directory, 'backlog.db'), DRAIN_EVENTS, { webhookUrl: `${receiver.url}/hook` });
  // Every event of the log is owed: the backlog, and the key and the webhook made before it. Waiting
  // for the backlog's count alone could stop before the last deliveries, which arrive in any order.
  const owed = backlog.positions.at(-1) ?? DRAIN_EVENTS;
  const draining = await startServer(SERVICE, { DATABASE_URL: `sqlite:${join(directory, 'backlog.db')}`, ...webhooks }, ready);
  const drained = await receiverWhen(receiver.url, (stats) => stats.distinct >= owed, 600_000);
  const drainSeconds = (drained.last_at - (performance.timeOrigin + draining.startedAt)) / 1000;
  const drainRate = Math.round(drained.distinct / drainSeconds);
  await draining.stop();
  await receiver.stop();

  const ratio = side.ratios[0]!;
  return {
    results: [...side.results, steady],
    comparisons: { update_user_one_webhook_vs_none: ratio },
    figures: {
      update_user_one_webhook_rps: side.results[1]!.rps,
      update_user_no_webhook_rps: side.results[0]!.rps,
      deliveries_during_o: deliveredDuringO,
      deliveries_caught_up_after_o_s: Number(catchUpSeconds.toFixed(1)),
      commit_to_receipt_writes: writes,
      commit_to_receipt_received: latency.distinct,
      commit_to_receipt_p50_ms: latency.p50_ms,
      commit_to_receipt_p99_ms: latency.p99_ms,
      drain_events: DRAIN_EVENTS,
      drain_delivered: drained.distinct,
      drain_seconds: Number(drainSeconds.toFixed(1)),
      drain_deliveries_per_second: drainRate,
    },
    lines: [
      `(o) update_user with one webhook against none: ${shown(ratio)} (target ≥ 0.9); ${deliveredDuringO} deliveries, the last ${catchUpSeconds.toFixed(1)} s after the load`,
      `(p) commit to receipt at ${WRITES_PER_SECOND} writes/s: p50 ${latency.p50_ms} ms, p99 ${latency.p99_ms} ms (targets ≤ 50, ≤ 250); ${latency.distinct} of ${writes} writes delivered`,
      `(q) a backlog of ${DRAIN_EVENTS.toLocaleString('en')} events: ${drained.distinct.toLocaleString('en')} delivered in ${drainSeconds.toFixed(1)} s from the service's start, ${drainRate}/s (target ≥ 1,000/s)`,
    ],
  };
}
