/** (k) get_audit_events: a page of 100 at a random depth of AUDIT_EVENTS events, by cursor, at one connection. */
import { join } from 'node:path';
import { seedAuditEvents } from '../seed.js';
import { AUDIT_EVENTS, load, pick, posting, ready, SERVICE, type ScenarioOutcome, startServer } from '../kit.js';
import type { BenchRun } from './run.js';

export async function auditPage({ directory }: BenchRun): Promise<ScenarioOutcome> {
  const trail = await seedAuditEvents(join(directory, 'audit.db'), AUDIT_EVENTS);
  const service = await startServer(SERVICE, { DATABASE_URL: `sqlite:${join(directory, 'audit.db')}` }, ready);
  const page = await load(`(k) get_audit_events, ${AUDIT_EVENTS.toLocaleString('en')} events, 1 conn`, {
    url: service.url,
    connections: 1,
    requests: posting('/api/public/get_audit_events', () => ({
      ...trail.credentials,
      page_size: 100,
      cursor: Buffer.from(pick(trail.eventIds)).toString('base64url'),
    })),
  });
  await service.stop();
  return {
    results: [page],
    comparisons: {},
    figures: { audit_events: AUDIT_EVENTS, get_audit_events_p99_ms_one_connection: page.p99 },
    lines: [`(k) get_audit_events p99 ${page.p99} ms at one connection over ${AUDIT_EVENTS.toLocaleString('en')} events (target ≤ 10 ms)`],
  };
}
