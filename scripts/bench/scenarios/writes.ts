/**
 * update_user, on 10,000 users: (a) the baseline and (b) the service,
 * interleaved; (e) the Prism mock against the service; (d) password changes
 * (argon2id) and other requests' p99 meanwhile; and the same build under tsx
 * as served, without request validation, and (j) without the audit trail.
 */
import { join } from 'node:path';
import { startPrism } from '../../../lib/prism.js';
import { freePort } from '../../../lib/testing/ports.js';
import {
  compare,
  CONNECTIONS,
  copyDatabase,
  load,
  type Measured,
  pick,
  posting,
  type Ratio,
  ready,
  rssMegabytes,
  SERVICE,
  type ScenarioOutcome,
  shown,
  startServer,
  VARIANT_SERVER,
} from '../kit.js';
import type { BenchRun } from './run.js';

/** An update_user body for a random one of `ids`: a new organization, so that every request changes the user. */
export const updateBody = (ids: string[], credentials: object) => () => ({
  ...credentials,
  target_user: { user_id: pick(ids), organization: `org-${Math.random().toString(36).slice(2, 8)}` },
});

export async function writes({ directory, small }: BenchRun): Promise<ScenarioOutcome> {
  const results: Measured[] = [];
  const baseline = await startServer('scripts/bench/baseline-server.ts', {}, (url) =>
    fetch(`${url}/api/public/update_user`, { method: 'POST' }),
  );
  const service = await startServer(SERVICE, { DATABASE_URL: `sqlite:${join(directory, 'users-10k.db')}` }, ready);
  const rssBefore = rssMegabytes(service.child);
  const updates = posting('/api/public/update_user', updateBody(small.userIds, small.credentials));
  const againstBaseline = await compare([
    { name: '(a) baseline: bare express', url: baseline.url, requests: updates },
    { name: '(b) update_user, 10k users', url: service.url, requests: updates },
  ]);
  results.push(...againstBaseline.results);
  await baseline.stop();
  const rssAfter = rssMegabytes(service.child);

  // (e) The Prism mock answering update_user, against the service: interleaved.
  const mock = await startPrism('workspace', await freePort());
  const againstMock = await compare([
    { name: '(e) Prism mock, update_user', url: mock.url, requests: updates },
    { name: '    update_user, against the mock', url: service.url, requests: updates },
  ]);
  results.push(againstMock.results[0]!);
  await mock.stop();

  // (d) Password changes (argon2id) and, at the same time, other requests' p99.
  const getUser = () => ({ ...small.credentials, target_user: { user_id: pick(small.userIds) } });
  const alone = await load('    get_user alone', { url: service.url, connections: 10, requests: posting('/api/public/get_user', getUser) });
  const [hashing, during] = await Promise.all([
    load('(d) update_user with password', {
      url: service.url,
      connections: 10,
      requests: posting('/api/public/update_user', () => ({
        ...small.credentials,
        target_user: { user_id: pick(small.userIds), password: `Bench-Pass-${Math.random()}` },
      })),
    }),
    load('    get_user during the burst', { url: service.url, connections: 10, requests: posting('/api/public/get_user', getUser) }),
  ]);
  results.push(hashing, alone, during);
  await service.stop();

  // (b) in three variants, all under tsx so that only the variant differs, interleaved: as
  // served, without request validation (what validating costs), and (j) without the audit
  // trail (what it costs; target: with it, at least 0.9x the req/s without). Each on a copy of
  // its own, as (o)'s two services are: on one database each would also copy into it, at its
  // checkpoints, the pages the others' writes left in the log.
  const variant = async (name: string) => {
    const file = join(directory, `variant-${name}.db`);
    await copyDatabase(join(directory, 'users-10k.db'), file);
    return startServer(VARIANT_SERVER, { DATABASE_URL: `sqlite:${file}`, BENCH_VARIANT: name }, ready);
  };
  // Started together: each compiles under tsx for a second or two.
  const variants = await Promise.all([variant('as-served'), variant('no-validation'), variant('no-audit')]);
  const [asServedUrl, withoutValidationUrl, withoutAuditUrl] = variants.map((server) => server.url);
  const parts = await compare([
    { name: '    update_user, under tsx', url: asServedUrl!, requests: updates },
    { name: '    update_user, no validation', url: withoutValidationUrl!, requests: updates },
    { name: '(j) update_user, no audit trail', url: withoutAuditUrl!, requests: updates },
  ]);
  results.push(...parts.results);
  for (const server of variants) await server.stop();
  const [asServed, withoutValidation, withoutAudit] = parts.results as [Measured, Measured, Measured];
  const [validationRatio, auditRatio] = parts.ratios as [Ratio, Ratio];
  // As-served against each variant, round by round: the ratios compare() gave, inverted.
  const asServedOver = (ratio: Ratio): Ratio => ({
    median: Number((1 / ratio.median).toFixed(3)),
    low: Number((1 / ratio.high).toFixed(3)),
    high: Number((1 / ratio.low).toFixed(3)),
    rounds: ratio.rounds,
  });
  const comparisons = {
    update_user_vs_baseline: againstBaseline.ratios[0]!,
    update_user_p99_vs_baseline: againstBaseline.p99Ratios[0]!,
    update_user_vs_mock: againstMock.ratios[0]!,
    with_validation_vs_without: asServedOver(validationRatio),
    with_audit_vs_without: asServedOver(auditRatio),
  };
  const [a, b] = againstBaseline.results as [Measured, Measured];
  return {
    results,
    comparisons,
    figures: {
      rss_before_mb: rssBefore,
      rss_after_mb: rssAfter,
      baseline_rps: a.rps,
      update_user_rps: b.rps,
      update_user_p50_ms: b.p50,
      update_user_p99_ms: b.p99,
      update_user_first_answers_ms: b.firstAnswers,
      baseline_first_answers_ms: a.firstAnswers,
      ratio_update_vs_baseline: comparisons.update_user_vs_baseline.median,
      update_user_unvalidated_rps: withoutValidation.rps,
      update_user_tsx_rps: asServed.rps,
      validator_cost_ratio: Number((1 - comparisons.with_validation_vs_without.median).toFixed(3)),
      update_user_unaudited_rps: withoutAudit.rps,
      audit_trail_ratio: comparisons.with_audit_vs_without.median,
      password_update_rps: hashing.rps,
      get_user_p99_alone_ms: alone.p99,
      get_user_p99_during_password_burst_ms: during.p99,
      mock_update_user_rps: againstMock.results[0]!.rps,
    },
    lines: [
      `update_user against the baseline: ${shown(comparisons.update_user_vs_baseline)}`,
      `update_user's p99 against the baseline's, on open connections: ${shown(comparisons.update_user_p99_vs_baseline)} (target ≤ 5); the last of ${CONNECTIONS} new connections answered first after ${b.firstAnswers} ms (the baseline's after ${a.firstAnswers} ms)`,
      `update_user against the Prism mock: ${shown(comparisons.update_user_vs_mock)}`,
      `update_user with validation against without: ${shown(comparisons.with_validation_vs_without)} (${withoutValidation.rps} req/s without it)`,
      `(j) update_user with its audit trail against without: ${shown(comparisons.with_audit_vs_without)} (target ≥ 0.9)`,
      `service RSS: ${rssBefore} MB before (b), ${rssAfter} MB after`,
    ],
  };
}
