/**
 * On 100,000 users, each interleaved with the workspace API doing the same: (l) SCIM's
 * `filter=userName eq "…"` (Entra ID's lookup before every create) against get_user, p99 to
 * p99 (target ≤ 2×: one index lookup); (m) a SCIM PATCH that deactivates a user against
 * update_user making the same change, req/s to req/s (target ≥ 0.8×); (s) /healthz beside each
 * of the worst PATCHes the bounds allow (as many members as a body holds added to a group; the
 * most operations a user's PATCH may hold over the most emails it may keep), the longest wait
 * of each round (target ≤ 50 ms: no request holds the event loop more than a few tens of ms);
 * and (s) /healthz beside the rename and the deletion of a group of 50,000 members (each moves
 * every member's version), the longest wait of each (same target).
 */
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { type Credentials, scimToken } from '../../../lib/contract/credentials.js';
import { BODY_LIMIT_BYTES } from '../../../lib/contract/operations.js';
import { SCIM_LIMITS } from '../../../lib/contract/scim-operations.js';
import {
  compare,
  PATCH_OP,
  pick,
  posting,
  quick,
  ready,
  ROUNDS,
  SERVICE,
  type ScenarioOutcome,
  shown,
  startServer,
  toggling,
} from '../kit.js';
import type { BenchRun } from './run.js';

/** (m)'s request, also profiled by `npm run profile -- --request scim-patch`: a SCIM PATCH setting `active` to the opposite of what it last set. */
export function patchingActive(credentials: Credentials, userIds: string[]): autocannon.Options['requests'] {
  const next = toggling(userIds);
  const headers = { authorization: `Bearer ${scimToken(credentials)}`, 'content-type': 'application/scim+json' };
  return [
    {
      method: 'PATCH',
      headers,
      setupRequest: (request) => {
        const { userId, disabled } = next();
        const body = { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: !disabled }] };
        return { ...request, path: `/scim/v2/Users/${userId}`, body: JSON.stringify(body) };
      },
    },
  ];
}

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
  const deactivations = await compare([
    {
      name: '    update_user disabled, 100k',
      url: service.url,
      requests: posting('/api/public/update_user', () => {
        const { userId, disabled } = nextUpdate();
        return { ...large.credentials, target_user: { user_id: userId, disabled } };
      }),
    },
    { name: '(m) SCIM PATCH active, 100k', url: service.url, requests: patchingActive(large.credentials, large.userIds.slice(half)) },
  ]);
  const worstWaits = await healthzBesideWorstPatches(service.url, bearer, large.userIds);
  const largeGroup = await healthzBesideLargeGroupChanges(service.url, bearer, large.userIds);
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
    scim_worst_group_patch_healthz_median_ms: worstWaits.group.median,
    scim_worst_group_patch_healthz_max_ms: worstWaits.group.max,
    scim_worst_user_patch_healthz_median_ms: worstWaits.user.median,
    scim_worst_user_patch_healthz_max_ms: worstWaits.user.max,
    large_group_rename_healthz_ms: largeGroup.rename,
    large_group_delete_healthz_ms: largeGroup.deletion,
  };
  return {
    results: [...lookups.results, ...deactivations.results],
    comparisons,
    figures,
    lines: [
      `(l) SCIM filter userName eq against get_user, p99 to p99 on ${large.userIds.length.toLocaleString('en')} users: ${shown(comparisons.scim_lookup_p99_vs_get_user)} (${figures.scim_lookup_p99_ms} ms against ${figures.scim_lookup_get_user_p99_ms} ms; target ≤ 2)`,
      `(m) SCIM PATCH deactivating against update_user, req/s: ${shown(comparisons.scim_deactivation_vs_update_user)} (${figures.scim_deactivation_rps} against ${figures.scim_deactivation_update_user_rps} req/s; target ≥ 0.8)`,
      `(s) /healthz beside a group PATCH adding ${worstWaits.members} members, the most a body holds: longest wait ${figures.scim_worst_group_patch_healthz_median_ms} ms in the median round, ${figures.scim_worst_group_patch_healthz_max_ms} ms at most (${ROUNDS} rounds; target ≤ 50 ms)`,
      `(s) /healthz beside a user PATCH of ${SCIM_LIMITS.patchOperations} operations over ${SCIM_LIMITS.emails} emails: longest wait ${figures.scim_worst_user_patch_healthz_median_ms} ms in the median round, ${figures.scim_worst_user_patch_healthz_max_ms} ms at most (target ≤ 50 ms)`,
      `(s) /healthz beside the rename of a group of ${largeGroup.members} members: longest wait ${figures.large_group_rename_healthz_ms} ms; beside its deletion: ${figures.large_group_delete_healthz_ms} ms (target ≤ 50 ms)`,
    ],
  };
}

/**
 * (s): in each round, a group PATCH adding as many members as a body holds, then a user PATCH
 * of the most operations over the most emails, each while one client asks /healthz again and
 * again; the longest of its waits beside each is the round's. A first round, not counted, lets
 * the service compile what it compiles on first use.
 */
async function healthzBesideWorstPatches(
  url: string,
  bearer: { authorization: string },
  userIds: string[],
): Promise<{ group: WaitFigures; user: WaitFigures; members: number }> {
  const scim = scimRequests(url, bearer);
  const longestWaitBeside = (request: Promise<Response>) => longestHealthzWait(url, request, 'a worst PATCH');
  const fit = Math.floor((BODY_LIMIT_BYTES - 200) / (JSON.stringify({ value: userIds[0] }).length + 1));
  const members = Math.min(fit, SCIM_LIMITS.members);
  const emails = Array.from({ length: SCIM_LIMITS.emails }, (_, index) => ({ value: `w${index}@example.com` }));
  const userOperations = [
    { op: 'add', path: 'emails', value: emails },
    ...Array.from({ length: SCIM_LIMITS.patchOperations - 1 }, (_, index) => ({ op: 'remove', path: `emails[value co "x${index}"]` })),
  ];
  const groupWaits: number[] = [];
  const userWaits: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const created = await scim('POST', '/Groups', {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
      displayName: `bench ${Date.now()} ${round}`,
    });
    const { id } = (await created.json()) as { id: string };
    const start = Math.floor(Math.random() * (userIds.length - members));
    const named = userIds.slice(start, start + members).map((value) => ({ value }));
    const group = await longestWaitBeside(
      scim('PATCH', `/Groups/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: named }] }),
    );
    // A user of its own each round, so that its emails start empty.
    const user = await longestWaitBeside(
      scim('PATCH', `/Users/${userIds[userIds.length - 1 - round]}`, { schemas: [PATCH_OP], Operations: userOperations }),
    );
    await scim('DELETE', `/Groups/${id}`);
    if (round > 0) {
      groupWaits.push(group);
      userWaits.push(user);
    }
  }
  return { group: waitFigures(groupWaits), user: waitFigures(userWaits), members };
}

/** Members of the group (s) renames and deletes: BENCH_LARGE_GROUP, or half the directory (a tenth with --quick). */
const LARGE_GROUP = Number(process.env.BENCH_LARGE_GROUP) || (quick ? 10_000 : 50_000);

/** A SCIM request with the bench's bearer token, its body as SCIM JSON. */
const scimRequests =
  (url: string, bearer: { authorization: string }) =>
  (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${url}/scim/v2${path}`, {
      method,
      headers: { ...bearer, 'content-type': 'application/scim+json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

/** The longest /healthz wait while `request` runs; the request must succeed. */
async function longestHealthzWait(url: string, request: Promise<Response>, what: string): Promise<number> {
  let done = false;
  void request.finally(() => (done = true));
  let longest = 0;
  while (!done) {
    const started = performance.now();
    await (await fetch(`${url}/healthz`)).arrayBuffer();
    longest = Math.max(longest, performance.now() - started);
  }
  const answer = await request;
  if (!answer.ok) throw new Error(`(s) ${what} failed: ${answer.status} ${await answer.text()}`);
  return Math.round(longest * 10) / 10;
}

/**
 * (s): a group of LARGE_GROUP members, made by PATCHes as large as a body holds; then the
 * longest /healthz wait beside its rename, and beside its deletion: each moves the version of
 * every member (their representations name the group).
 */
async function healthzBesideLargeGroupChanges(
  url: string,
  bearer: { authorization: string },
  userIds: string[],
): Promise<{ rename: number; deletion: number; members: number }> {
  const scim = scimRequests(url, bearer);
  const members = Math.min(LARGE_GROUP, userIds.length);
  const created = await scim('POST', '/Groups', {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'],
    displayName: `large ${Date.now()}`,
  });
  const { id } = (await created.json()) as { id: string };
  const perBody = Math.min(SCIM_LIMITS.members, Math.floor((BODY_LIMIT_BYTES - 200) / (JSON.stringify({ value: userIds[0] }).length + 1)));
  for (let start = 0; start < members; start += perBody) {
    const value = userIds.slice(start, Math.min(members, start + perBody)).map((userId) => ({ value: userId }));
    const added = await scim('PATCH', `/Groups/${id}`, { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value }] });
    if (!added.ok) throw new Error(`(s) building the large group failed: ${added.status} ${await added.text()}`);
  }
  const rename = await longestHealthzWait(
    url,
    scim('PATCH', `/Groups/${id}`, {
      schemas: [PATCH_OP],
      Operations: [{ op: 'replace', path: 'displayName', value: `renamed ${Date.now()}` }],
    }),
    'renaming the large group',
  );
  const deletion = await longestHealthzWait(url, scim('DELETE', `/Groups/${id}`), 'deleting the large group');
  return { rename, deletion, members };
}

interface WaitFigures {
  median: number;
  max: number;
}

function waitFigures(waits: number[]): WaitFigures {
  const sorted = [...waits].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, max: sorted.at(-1)! };
}
