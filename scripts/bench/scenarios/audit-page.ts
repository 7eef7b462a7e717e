/**
 * Over AUDIT_EVENTS events, at one connection: (k) get_audit_events, a page of 100 at a
 * random depth, by cursor, and the newest 100 of one user (along the user's chain, decision
 * 46: 10 events per user in a quick run, 100 in a full one); (r) get_events, the change feed's page of 1,000 after a cursor at
 * a random depth (target p99 ≤ 20 ms over 1,000,000 events).
 */
import { join } from 'node:path';
import { seedAuditEvents } from '../seed.js';
import { AUDIT_EVENTS, load, pick, posting, ready, SERVICE, type ScenarioOutcome, startServer } from '../kit.js';
import type { BenchRun } from './run.js';

/** A get_events cursor (server/directory/change-feed.ts): the place read to, and when. */
const feedCursor = (position: number) => Buffer.from(`${position}.${Date.now()}`, 'latin1').toString('base64url');

export async function auditPage({ directory }: BenchRun): Promise<ScenarioOutcome> {
  const trail = await seedAuditEvents(join(directory, 'audit.db'), AUDIT_EVENTS);
  const service = await startServer(SERVICE, { DATABASE_URL: `sqlite:${join(directory, 'audit.db')}` }, ready);
  const events = AUDIT_EVENTS.toLocaleString('en');
  const page = await load(`(k) get_audit_events, ${events} events, 1 conn`, {
    url: service.url,
    connections: 1,
    requests: posting('/api/public/get_audit_events', () => ({
      ...trail.credentials,
      page_size: 100,
      cursor: Buffer.from(pick(trail.eventIds)).toString('base64url'),
    })),
  });
  const ofUser = (target_user_id: string) => ({ ...trail.credentials, page_size: 100, target_user_id });
  // The page is the user's whole history (a listing that found nothing would measure nothing).
  const perUser = Math.min(100, Math.floor(AUDIT_EVENTS / trail.userIds.length));
  const answer = await fetch(`${service.url}/api/public/get_audit_events`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(ofUser(pick(trail.userIds))),
  });
  const found = ((await answer.json()) as { events?: unknown[] }).events?.length;
  if (found !== perUser) throw new Error(`get_audit_events by user found ${found} events, not the ${perUser} seeded`);
  const byUser = await load(`(k) get_audit_events of one user, 1 conn`, {
    url: service.url,
    connections: 1,
    requests: posting('/api/public/get_audit_events', () => ofUser(pick(trail.userIds))),
  });
  // Every page full: a cursor at least 1,000 events before the end.
  const fullPages = trail.positions.slice(0, -1000);
  const feed = await load(`(r) get_events, 1,000 of ${events}, 1 conn`, {
    url: service.url,
    connections: 1,
    requests: posting('/api/public/get_events', () => ({ ...trail.credentials, after: feedCursor(pick(fullPages)), limit: 1000 })),
  });
  await service.stop();
  return {
    results: [page, byUser, feed],
    comparisons: {},
    figures: {
      audit_events: AUDIT_EVENTS,
      get_audit_events_p99_ms_one_connection: page.p99,
      get_audit_events_of_user_p99_ms: byUser.p99,
      get_events_page_1000_p99_ms: feed.p99,
      get_events_page_1000_p50_ms: feed.p50,
    },
    lines: [
      `(k) get_audit_events p99 ${page.p99} ms at one connection over ${events} events (target ≤ 10 ms)`,
      `(k) get_audit_events of one user (${perUser} events), p99 ${byUser.p99} ms at one connection (target ≤ 10 ms)`,
      `(r) get_events, a page of 1,000, p99 ${feed.p99} ms at one connection over ${events} events (target ≤ 20 ms)`,
    ],
  };
}
