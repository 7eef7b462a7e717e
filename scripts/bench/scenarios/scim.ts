/**
 * On 100,000 users, each interleaved with the workspace API doing the same: (l) SCIM's
 * `filter=userName eq "…"` (Entra ID's lookup before every create) against get_user, p99 to
 * p99 (target ≤ 2×: one index lookup); (m) a SCIM PATCH that deactivates a user against
 * update_user making the same change, req/s to req/s (target ≥ 0.8×).
 */
import { join } from 'node:path';
import { scimToken } from '../../../lib/contract/credentials.js';
import { compare, PATCH_OP, pick, posting, ready, SERVICE, type ScenarioOutcome, shown, startServer, toggling } from '../kit.js';
import type { BenchRun } from './run.js';

export async function scim({ directory, large }: BenchRun): Promise<ScenarioOutcome> {
  // On a service of its own: the listings of (i) leave a heap whose collections would weigh on both.
  const service = await startServer(SERVICE, { DATABASE_URL: `sqlite:${join(directory, 'users-100k.db')}` }, ready);
  const bearer = { authorization: `Bearer ${scimToken(large.credentials)}` };
  const getLarge = posting('/api/public/get_user', () => ({ ...large.credentials, target_user: { user_id: pick(large.userIds) } }));
  const lookups = await compare([
    { name: '    get_user, 100k users', url: service.url, requests: getLarge },
    {
      name: '(l) SCIM filter userName eq, 100k',
      url: service.url,
      requests: [
        {
          method: 'GET',
          headers: bearer,
          setupRequest: (request) => ({
            ...request,
            path: `/scim/v2/Users?filter=${encodeURIComponent(`userName eq "${pick(large.usernames)}"`)}`,
          }),
        },
      ],
    },
  ]);
  // Each has half the users, so that neither undoes the other's changes.
  const half = large.userIds.length / 2;
  const nextUpdate = toggling(large.userIds.slice(0, half));
  const nextPatch = toggling(large.userIds.slice(half));
  const deactivations = await compare([
    {
      name: '    update_user disabled, 100k',
      url: service.url,
      requests: posting('/api/public/update_user', () => {
        const { userId, disabled } = nextUpdate();
        return { ...large.credentials, target_user: { user_id: userId, disabled } };
      }),
    },
    {
      name: '(m) SCIM PATCH active, 100k',
      url: service.url,
      requests: [
        {
          method: 'PATCH',
          headers: { ...bearer, 'content-type': 'application/scim+json' },
          setupRequest: (request) => {
            const { userId, disabled } = nextPatch();
            const body = { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: !disabled }] };
            return { ...request, path: `/scim/v2/Users/${userId}`, body: JSON.stringify(body) };
          },
        },
      ],
    },
  ]);
  await service.stop();
  const comparisons = {
    scim_lookup_p99_vs_get_user: lookups.p99Ratios[0]!,
    scim_deactivation_vs_update_user: deactivations.ratios[0]!,
  };
  const figures = {
    scim_lookup_p99_ms: lookups.results[1]!.p99,
    scim_lookup_get_user_p99_ms: lookups.results[0]!.p99,
    scim_lookup_p99_ratio: comparisons.scim_lookup_p99_vs_get_user.median,
    scim_deactivation_rps: deactivations.results[1]!.rps,
    scim_deactivation_update_user_rps: deactivations.results[0]!.rps,
    scim_deactivation_ratio: comparisons.scim_deactivation_vs_update_user.median,
  };
  return {
    results: [...lookups.results, ...deactivations.results],
    comparisons,
    figures,
    lines: [
      `(l) SCIM filter userName eq against get_user, p99 to p99 on 100,000 users: ${shown(comparisons.scim_lookup_p99_vs_get_user)} (${figures.scim_lookup_p99_ms} ms against ${figures.scim_lookup_get_user_p99_ms} ms; target ≤ 2)`,
      `(m) SCIM PATCH deactivating against update_user, req/s: ${shown(comparisons.scim_deactivation_vs_update_user)} (${figures.scim_deactivation_rps} against ${figures.scim_deactivation_update_user_rps} req/s; target ≥ 0.8)`,
    ],
  };
}
