/**
 * `npm run bench`: the service's speed side by side with a baseline measured
 * in the same run, on this machine (autocannon over loopback; every server
 * in a process of its own, the load in this one).
 *
 *   npm run bench                       the reference run (10 s per scenario; comparisons 7 rounds of 3 s)
 *   npm run bench -- --quick            2 s per scenario; comparisons 5 rounds of 1 s
 *   npm run bench -- --out bench.json   also write the figures as JSON
 *
 * A comparison (update_user against the baseline; the service against the
 * Prism mock; update_user with and without validation and the audit trail)
 * runs its contenders side by side, each in a process of its own, in
 * interleaved rounds (A, B, then B, A …), and reports the median of the
 * per-round ratios with their range: the machine's speed drifts over a run,
 * and a ratio of two loads measured a second apart drifts far less than one of
 * two loads measured a minute apart.
 *
 * Scenarios: (a) baseline, bare express answering a fixed user; (b) update_user
 * without a password on 10,000 users; (c) get_users, a page of 100 from
 * 100,000 users at a random depth, by page number and by cursor; (d) update_user with a password change, and get_user's p99
 * during that burst; (e) the Prism mock answering update_user; (f) the sample
 * server's /api/data; (g) time from process start to the first 200. Also
 * update_user without request validation (what the validator costs) and (h)
 * the service's RSS over a long update_user load (60 s; 4 s with --quick);
 * (i) get_users listing all 100,000 users at once (time to the last byte,
 * bytes on the wire plain, gzip'd and Brotli'd, RSS before and at its peak),
 * and get_user's p99 while 10 clients do that;
 * (j) update_user without its audit trail (what the trail costs, against the same build
 * under tsx measured before and after it); (k)
 * get_audit_events, a page of 100 by cursor from 1,000,000 events, at one connection;
 * on 100,000 users, (l) SCIM's `filter=userName eq "…"` (Entra ID's lookup before every
 * create) against get_user, p99 to p99, and (m) a SCIM PATCH that deactivates a user
 * against update_user making the same change, req/s to req/s: both interleaved;
 * (n) `npm run cli -- --version` in the built checkout (the build check skips the build).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import Table from 'cli-table3';
import { PROJECT_ROOT } from '../lib/project-root.js';
import { freePort } from '../lib/testing/ports.js';
import { seedAuditEvents, seedUsers } from './bench/seed.js';
import { startPrism } from '../lib/prism.js';
import { scimToken } from '../lib/contract/credentials.js';

const quick = process.argv.includes('--quick');
const outIndex = process.argv.indexOf('--out');
const outFile = outIndex > 0 ? process.argv[outIndex + 1] : undefined;
const DURATION_S = Number(process.env.BENCH_DURATION_S) || (quick ? 2 : 10);
const CONNECTIONS = 50;
const MEMORY_DURATION_S = Number(process.env.BENCH_MEMORY_DURATION_S) || (quick ? 4 : 60);
/** Audit events scenario (k) pages through. */
const AUDIT_EVENTS = quick ? 100_000 : 1_000_000;
/** Rounds of a comparison (at least five), and each contender's load per round, in seconds. */
const ROUNDS = Math.max(5, Number(process.env.BENCH_ROUNDS) || (quick ? 5 : 7));
const ROUND_S = Number(process.env.BENCH_ROUND_S) || (quick ? 1 : 3);

interface Measured {
  name: string;
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

interface Running {
  url: string;
  child: ChildProcess;
  startedAt: number;
  readyAt: number;
  stop(): Promise<void>;
}

/**
 * The service and the sample server run as `npm start` runs them: compiled, by
 * node alone (`npm run bench` builds first). The bench's own servers run under tsx.
 */
const SERVICE = 'server/dist/server/main.js';
const SAMPLE = 'server/dist/server/sample/main.js';

/** Starts a server script and waits for its first 200 on `probe`. */
async function startServer(script: string, env: Record<string, string>, probe: (url: string) => Promise<Response>): Promise<Running> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const startedAt = performance.now();
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...loader, join(PROJECT_ROOT, script)], {
    env: { ...process.env, PORT: String(port), LOG_LEVEL: 'warn', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    try {
      if ((await probe(url)).status === 200) break;
    } catch {
      // Not listening yet.
    }
    if (performance.now() - startedAt > 30_000) throw new Error(`${script} did not answer within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return {
    url,
    child,
    startedAt,
    readyAt: performance.now(),
    async stop() {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

/** Ready for traffic: /readyz, since /healthz answers 200 while the database still migrates. */
const ready = (url: string) => fetch(`${url}/readyz`);

function rssMegabytes(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/**
 * How often autocannon samples. It stops a load at the first sample after its
 * duration, so at its default of a second a one-second load would take up to two.
 */
const SAMPLE_MS = 100;

async function load(name: string, options: autocannon.Options): Promise<Measured> {
  const result = await autocannon({ connections: CONNECTIONS, duration: DURATION_S, sampleInt: SAMPLE_MS, ...options });
  return measured(name, result);
}

/** A load's figures; req/s from the requests completed and the time they took (autocannon's average is per sample). */
function measured(name: string, result: autocannon.Result): Measured {
  return {
    name,
    rps: Math.round(result.requests.total / result.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts + result.non2xx,
  };
}

/** A POST whose body is built afresh for every request. */
function posting(path: string, body: () => unknown): autocannon.Options['requests'] {
  return [
    {
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      setupRequest: (request) => ({ ...request, body: JSON.stringify(body()) }),
    },
  ];
}

const pick = <T>(items: T[]) => items[Math.floor(Math.random() * items.length)]!;

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** One side of a comparison: a server and the load it gets. */
interface Contender {
  name: string;
  url: string;
  requests: autocannon.Options['requests'];
}

/** A contender's ratio to the first of its comparison (of req/s, or of p99): the median of the per-round ratios, and their range. */
interface Ratio {
  median: number;
  low: number;
  high: number;
  rounds: number;
}

/**
 * The contenders in interleaved rounds, after a warm-up round each that is not
 * counted: forward in even rounds, backward in odd ones, so that neither is
 * always the one measured later. Each contender's figures are the medians of
 * its rounds; each ratio is to the first contender, round by round.
 */
async function compare(contenders: Contender[]): Promise<{ results: Measured[]; ratios: Ratio[]; p99Ratios: Ratio[] }> {
  const run = (contender: Contender, duration: number) =>
    autocannon({ url: contender.url, connections: CONNECTIONS, duration, sampleInt: SAMPLE_MS, requests: contender.requests });
  for (const contender of contenders) await run(contender, Math.min(1, ROUND_S));
  const rounds: Measured[][] = contenders.map(() => []);
  for (let round = 0; round < ROUNDS; round++) {
    const order = contenders.map((_, index) => index);
    if (round % 2 === 1) order.reverse();
    for (const index of order) rounds[index]!.push(measured(contenders[index]!.name, await run(contenders[index]!, ROUND_S)));
  }
  const results = contenders.map((contender, index) => {
    const mine = rounds[index]!;
    return {
      name: contender.name,
      rps: Math.round(median(mine.map((round) => round.rps))),
      p50: median(mine.map((round) => round.p50)),
      p99: median(mine.map((round) => round.p99)),
      errors: mine.reduce((sum, round) => sum + round.errors, 0),
    };
  });
  const ratiosOf = (figure: (round: Measured) => number) =>
    rounds.slice(1).map((mine) => {
      const perRound = mine.map((round, index) => figure(round) / figure(rounds[0]![index]!));
      const round3 = (value: number) => Number(value.toFixed(3));
      return { median: round3(median(perRound)), low: round3(Math.min(...perRound)), high: round3(Math.max(...perRound)), rounds: ROUNDS };
    });
  return { results, ratios: ratiosOf((round) => round.rps), p99Ratios: ratiosOf((round) => round.p99) };
}

const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

/**
 * Users drawn at random, each with the opposite of the state it was last sent: so that
 * every change really changes something (a no-op PATCH writes nothing and would flatter it).
 */
function toggling(userIds: string[]): () => { userId: string; disabled: boolean } {
  const disabled = new Map<string, boolean>();
  return () => {
    const userId = pick(userIds);
    const next = !(disabled.get(userId) ?? false);
    disabled.set(userId, next);
    return { userId, disabled: next };
  };
}

const shown = (ratio: Ratio) =>
  `${ratio.median.toFixed(2)}× (median of ${ratio.rounds} interleaved rounds, ${ratio.low.toFixed(2)}–${ratio.high.toFixed(2)})`;

async function main(): Promise<void> {
  const directory = await mkdtemp(join(tmpdir(), 'workspace-bench-'));
  const results: Measured[] = [];
  const figures: Record<string, number> = {};
  try {
    process.stderr.write(`seeding 10,000 and 100,000 users; ${DURATION_S} s per scenario, ${CONNECTIONS} connections\n`);
    const small = await seedUsers(join(directory, 'users-10k.db'), 10_000);
    const large = await seedUsers(join(directory, 'users-100k.db'), 100_000);
    const updateBody = (ids: string[], credentials: object) => () => ({
      ...credentials,
      target_user: { user_id: pick(ids), organization: `org-${Math.random().toString(36).slice(2, 8)}` },
    });

    // (a) The baseline and (b) update_user, full validation and a durable commit, on 10,000 users: interleaved.
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
    figures.rss_before_mb = rssBefore;
    figures.rss_after_mb = rssMegabytes(service.child);

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
    const alone = await load('    get_user alone', {
      url: service.url,
      connections: 10,
      requests: posting('/api/public/get_user', getUser),
    });
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
    // trail (what it costs; target: with it, at least 0.9x the req/s without).
    const variant = (name: string) =>
      startServer(
        'scripts/bench/variant-server.ts',
        { DATABASE_URL: `sqlite:${join(directory, 'users-10k.db')}`, BENCH_VARIANT: name },
        ready,
      );
    const variants = [await variant('as-served'), await variant('no-validation'), await variant('no-audit')];
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

    // (k) get_audit_events: a page of 100 at a random depth of AUDIT_EVENTS events, by cursor, at one connection.
    const trail = await seedAuditEvents(join(directory, 'audit.db'), AUDIT_EVENTS);
    const auditService = await startServer(SERVICE, { DATABASE_URL: `sqlite:${join(directory, 'audit.db')}` }, ready);
    const auditPage = await load(`(k) get_audit_events, ${AUDIT_EVENTS.toLocaleString('en')} events, 1 conn`, {
      url: auditService.url,
      connections: 1,
      requests: posting('/api/public/get_audit_events', () => ({
        ...trail.credentials,
        page_size: 100,
        cursor: Buffer.from(pick(trail.eventIds)).toString('base64url'),
      })),
    });
    results.push(auditPage);
    await auditService.stop();

    // (h) Memory over a long load: RSS sampled every second.
    const steady = await startServer(SERVICE, { DATABASE_URL: `sqlite:${join(directory, 'users-10k.db')}` }, ready);
    const samples: number[] = [rssMegabytes(steady.child)];
    const sampler = setInterval(() => samples.push(rssMegabytes(steady.child)), 1_000);
    const long = await autocannon({
      url: steady.url,
      connections: CONNECTIONS,
      duration: MEMORY_DURATION_S,
      sampleInt: SAMPLE_MS,
      requests: posting('/api/public/update_user', updateBody(small.userIds, small.credentials)),
    });
    clearInterval(sampler);
    samples.push(rssMegabytes(steady.child));
    results.push(measured(`(h) update_user for ${MEMORY_DURATION_S} s`, long));
    await steady.stop();
    // RSS saws up and down with V8's collections; what a leak raises is the floor.
    const middle = Math.floor(samples.length / 2);
    const floor = (part: number[]) => Math.min(...part);
    Object.assign(figures, {
      memory_duration_s: MEMORY_DURATION_S,
      memory_rss_start_mb: samples[0],
      memory_rss_peak_mb: Math.max(...samples),
      memory_rss_end_mb: samples.at(-1),
      memory_rss_floor_growth_mb: floor(samples.slice(middle)) - floor(samples.slice(1, middle + 1)),
    });

    // (c) A page of 100 from 100,000 users.
    const big = await startServer(SERVICE, { DATABASE_URL: `sqlite:${join(directory, 'users-100k.db')}` }, ready);
    const randomPage = posting('/api/public/get_users', () => ({
      ...large.credentials,
      page: 1 + Math.floor(Math.random() * 1000),
      page_size: 100,
      sort_by: 'last_name',
    }));
    results.push(await load('(c) get_users, page 1-1000 of 100k', { url: big.url, requests: randomPage }));
    // The same pages one at a time: what a page costs, without 49 others queued ahead of it.
    const pageAlone = await load('    get_users, 1 connection', { url: big.url, connections: 1, requests: randomPage });
    results.push(pageAlone);
    // The same depths by cursor: each cursor is the next_cursor of a random page, taken before the load.
    const cursors: string[] = [];
    for (let taken = 0; taken < 200; taken++) {
      const answer = await fetch(`${big.url}/api/public/get_users`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...large.credentials, page: 1 + Math.floor(Math.random() * 999), page_size: 100, sort_by: 'last_name' }),
      });
      cursors.push(((await answer.json()) as { next_cursor: string }).next_cursor);
    }
    const randomCursor = posting('/api/public/get_users', () => ({ ...large.credentials, cursor: pick(cursors), page_size: 100 }));
    const byCursor = await load('(c) get_users by cursor', { url: big.url, requests: randomCursor });
    const cursorAlone = await load('    by cursor, 1 connection', { url: big.url, connections: 1, requests: randomCursor });
    results.push(byCursor, cursorAlone);

    // (i) Every user at once, as Kasm clients ask: get_users with credentials only, on 100,000 users.
    const everyone = JSON.stringify(large.credentials);
    // Bytes as they cross the wire (node:http leaves them encoded), to the last one.
    const listEveryone = (encoding: 'identity' | 'gzip' | 'br' = 'identity') =>
      new Promise<{ ms: number; bytes: number }>((resolve, reject) => {
        const started = performance.now();
        const sent = httpRequest(
          `${big.url}/api/public/get_users`,
          { method: 'POST', headers: { 'Content-Type': 'application/json', 'Accept-Encoding': encoding } },
          (answer) => {
            let bytes = 0;
            answer.on('data', (chunk: Buffer) => (bytes += chunk.length));
            answer.on('end', () =>
              answer.statusCode === 200
                ? resolve({ ms: performance.now() - started, bytes })
                : reject(new Error(`get_users answered ${answer.statusCode}`)),
            );
            answer.on('error', reject);
          },
        );
        sent.on('error', reject);
        sent.end(everyone);
      });
    const listingRssBefore = rssMegabytes(big.child);
    let listingRssPeak = listingRssBefore;
    const listingSampler = setInterval(() => (listingRssPeak = Math.max(listingRssPeak, rssMegabytes(big.child))), 20);
    const listing = await listEveryone();
    clearInterval(listingSampler);
    // The same listing compressed, as Kasm's Python clients (gzip) and browsers (br) ask for it.
    const gzipped = await listEveryone('gzip');
    const brotli = await listEveryone('br');
    // While 10 clients list everyone over and over, get_user's p99 against its p99 alone.
    const getLarge = posting('/api/public/get_user', () => ({ ...large.credentials, target_user: { user_id: pick(large.userIds) } }));
    const getAlone = await load('(i) get_user alone, 100k users', { url: big.url, connections: 10, requests: getLarge });
    let listings = 0;
    const until = performance.now() + DURATION_S * 1000;
    const listers = Array.from({ length: 10 }, async () => {
      while (performance.now() < until) {
        await listEveryone();
        listings++;
      }
    });
    const [getDuring] = await Promise.all([
      load('    get_user during 10 listings', { url: big.url, connections: 10, requests: getLarge }),
      ...listers,
    ]);
    results.push(getAlone, getDuring);

    await big.stop();

    // (l) SCIM's lookup by userName, against get_user by id, interleaved: p99 to p99 (target ≤ 2×: one index lookup).
    // On a service of their own: (i) leaves a heap grown by the listings, whose collections would weigh on both.
    const fresh100k = await startServer(SERVICE, { DATABASE_URL: `sqlite:${join(directory, 'users-100k.db')}` }, ready);
    const bearer = { authorization: `Bearer ${scimToken(large.credentials)}` };
    const lookups = await compare([
      { name: '    get_user, 100k users', url: fresh100k.url, requests: getLarge },
      {
        name: '(l) SCIM filter userName eq, 100k',
        url: fresh100k.url,
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
    results.push(...lookups.results);
    // (m) Deactivating (and reactivating) through SCIM's PATCH, against update_user making the same change: req/s to req/s
    // (target ≥ 0.8×). Each has half the users, so that neither undoes the other's changes.
    const half = large.userIds.length / 2;
    const nextUpdate = toggling(large.userIds.slice(0, half));
    const nextPatch = toggling(large.userIds.slice(half));
    const deactivations = await compare([
      {
        name: '    update_user disabled, 100k',
        url: fresh100k.url,
        requests: posting('/api/public/update_user', () => {
          const { userId, disabled } = nextUpdate();
          return { ...large.credentials, target_user: { user_id: userId, disabled } };
        }),
      },
      {
        name: '(m) SCIM PATCH active, 100k',
        url: fresh100k.url,
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
    results.push(...deactivations.results);
    Object.assign(figures, {
      every_user_ms: Math.round(listing.ms),
      every_user_mb: Number((listing.bytes / 1e6).toFixed(1)),
      every_user_gzip_ms: Math.round(gzipped.ms),
      every_user_gzip_mb: Number((gzipped.bytes / 1e6).toFixed(1)),
      every_user_br_ms: Math.round(brotli.ms),
      every_user_br_mb: Number((brotli.bytes / 1e6).toFixed(1)),
      every_user_rss_before_mb: listingRssBefore,
      every_user_rss_peak_mb: listingRssPeak,
      every_user_rss_growth_mb: listingRssPeak - listingRssBefore,
      every_user_concurrent_listings: listings,
      get_user_p99_alone_100k_ms: getAlone.p99,
      get_user_p99_during_listings_ms: getDuring.p99,
    });
    await fresh100k.stop();

    // (f) The sample server.
    const sample = await startServer(SAMPLE, {}, (url) => fetch(`${url}/api/data`));
    results.push(await load('(f) sample /api/data', { url: `${sample.url}/api/data` }));
    await sample.stop();

    // (g) From process start to the first 200, each time on a fresh database; the median of several.
    const startups: number[] = [];
    for (let start = 0; start < (quick ? 1 : 5); start++) {
      const cold = await startServer(SERVICE, { DATABASE_URL: `sqlite:${join(directory, `fresh-${start}.db`)}` }, ready);
      startups.push(Math.round(cold.readyAt - cold.startedAt));
      await cold.stop();
    }
    figures.startup_ms = startups.sort((x, y) => x - y)[Math.floor(startups.length / 2)]!;

    // (n) `npm run cli -- --version` in this built checkout: the build check, npm and the CLI, the median of five.
    const cliCalls: number[] = [];
    for (let call = 0; call < 5; call++) {
      const started = performance.now();
      const npm = process.env.npm_execpath;
      const args = ['run', 'cli', '--silent', '--', '--version'];
      const child = npm ? spawn(process.execPath, [npm, ...args], { cwd: PROJECT_ROOT }) : spawn('npm', args, { cwd: PROJECT_ROOT });
      const [code] = (await once(child, 'exit')) as [number | null];
      if (code !== 0) throw new Error(`npm run cli -- --version exited ${code}`);
      cliCalls.push(Math.round(performance.now() - started));
    }
    figures.cli_call_ms = cliCalls.sort((x, y) => x - y)[2]!;

    const named = (prefix: string) => results.find((result) => result.name.startsWith(prefix))!;
    const [a, b, c, d] = [named('(a)'), named('(b)'), named('(c)'), named('(d)')];
    // As-served against each variant, round by round: the ratios compare() gave, inverted.
    const asServedOver = (ratio: Ratio): Ratio => ({
      median: Number((1 / ratio.median).toFixed(3)),
      low: Number((1 / ratio.high).toFixed(3)),
      high: Number((1 / ratio.low).toFixed(3)),
      rounds: ratio.rounds,
    });
    const comparisons = {
      update_user_vs_baseline: againstBaseline.ratios[0]!,
      update_user_vs_mock: againstMock.ratios[0]!,
      with_validation_vs_without: asServedOver(validationRatio),
      with_audit_vs_without: asServedOver(auditRatio),
      scim_lookup_p99_vs_get_user: lookups.p99Ratios[0]!,
      scim_deactivation_vs_update_user: deactivations.ratios[0]!,
    };
    Object.assign(figures, {
      baseline_rps: a.rps,
      update_user_rps: b.rps,
      update_user_p50_ms: b.p50,
      update_user_p99_ms: b.p99,
      ratio_update_vs_baseline: comparisons.update_user_vs_baseline.median,
      update_user_unvalidated_rps: withoutValidation.rps,
      update_user_tsx_rps: asServed.rps,
      validator_cost_ratio: Number((1 - comparisons.with_validation_vs_without.median).toFixed(3)),
      update_user_unaudited_rps: withoutAudit.rps,
      audit_trail_ratio: comparisons.with_audit_vs_without.median,
      audit_events: AUDIT_EVENTS,
      get_audit_events_p99_ms_one_connection: auditPage.p99,
      get_users_rps: c.rps,
      get_users_p99_ms: c.p99,
      get_users_p99_ms_one_connection: pageAlone.p99,
      get_users_cursor_rps: byCursor.rps,
      get_users_cursor_p99_ms: byCursor.p99,
      get_users_cursor_p99_ms_one_connection: cursorAlone.p99,
      password_update_rps: d.rps,
      get_user_p99_alone_ms: alone.p99,
      get_user_p99_during_password_burst_ms: during.p99,
      mock_update_user_rps: named('(e)').rps,
      sample_data_rps: named('(f)').rps,
      scim_lookup_p99_ms: lookups.results[1]!.p99,
      scim_lookup_get_user_p99_ms: lookups.results[0]!.p99,
      scim_lookup_p99_ratio: comparisons.scim_lookup_p99_vs_get_user.median,
      scim_deactivation_rps: deactivations.results[1]!.rps,
      scim_deactivation_update_user_rps: deactivations.results[0]!.rps,
      scim_deactivation_ratio: comparisons.scim_deactivation_vs_update_user.median,
      errors: results.reduce((sum, result) => sum + result.errors, 0),
    });

    const table = new Table({
      head: ['scenario', 'req/s', 'p50 ms', 'p99 ms', '× baseline', 'errors'],
      style: { head: [], border: [], compact: true },
    });
    for (const result of results) {
      table.push([
        result.name,
        String(result.rps),
        String(result.p50),
        String(result.p99),
        (result.rps / a.rps).toFixed(2),
        String(result.errors),
      ]);
    }
    process.stdout.write(`${table.toString()}\n`);
    process.stdout.write(
      [
        `(g) start to first 200: ${figures.startup_ms} ms${startups.length > 1 ? ` (median of ${startups.join(', ')})` : ''}`,
        `(n) npm run cli -- --version in the built checkout: ${figures.cli_call_ms} ms (median of 5; target < 500)`,
        `(i) every one of 100,000 users: ${figures.every_user_ms} ms to the last byte (${figures.every_user_mb} MB), RSS ${figures.every_user_rss_before_mb} → peak ${figures.every_user_rss_peak_mb} MB (+${figures.every_user_rss_growth_mb}); ` +
          `get_user p99 ${figures.get_user_p99_alone_100k_ms} ms alone, ${figures.get_user_p99_during_listings_ms} ms during ${figures.every_user_concurrent_listings} listings by 10 clients`,
        `(i) compressed: gzip ${figures.every_user_gzip_mb} MB in ${figures.every_user_gzip_ms} ms, Brotli ${figures.every_user_br_mb} MB in ${figures.every_user_br_ms} ms (plain ${figures.every_user_mb} MB in ${figures.every_user_ms} ms)`,
        `update_user against the baseline: ${shown(comparisons.update_user_vs_baseline)}`,
        `update_user against the Prism mock: ${shown(comparisons.update_user_vs_mock)}`,
        `update_user with validation against without: ${shown(comparisons.with_validation_vs_without)} (${withoutValidation.rps} req/s without it)`,
        `(j) update_user with its audit trail against without: ${shown(comparisons.with_audit_vs_without)} (target ≥ 0.9)`,
        `(k) get_audit_events p99 ${auditPage.p99} ms at one connection over ${AUDIT_EVENTS.toLocaleString('en')} events (target ≤ 10 ms)`,
        `(l) SCIM filter userName eq against get_user, p99 to p99 on 100,000 users: ${shown(comparisons.scim_lookup_p99_vs_get_user)} (${figures.scim_lookup_p99_ms} ms against ${figures.scim_lookup_get_user_p99_ms} ms; target ≤ 2)`,
        `(m) SCIM PATCH deactivating against update_user, req/s: ${shown(comparisons.scim_deactivation_vs_update_user)} (${figures.scim_deactivation_rps} against ${figures.scim_deactivation_update_user_rps} req/s; target ≥ 0.8)`,
        `service RSS: ${figures.rss_before_mb} MB before (b), ${figures.rss_after_mb} MB after; ` +
          `(h) ${figures.memory_rss_start_mb} → ${figures.memory_rss_end_mb} MB over ${MEMORY_DURATION_S} s (peak ${figures.memory_rss_peak_mb}; lowest point, second half against first: ${figures.memory_rss_floor_growth_mb! >= 0 ? '+' : ''}${figures.memory_rss_floor_growth_mb} MB)`,
        '',
      ].join('\n'),
    );
    if (outFile)
      await writeFile(
        outFile,
        `${JSON.stringify({ duration_s: DURATION_S, connections: CONNECTIONS, rounds: ROUNDS, round_s: ROUND_S, ...figures, comparisons, scenarios: results }, null, 2)}\n`,
      );
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

await main();
